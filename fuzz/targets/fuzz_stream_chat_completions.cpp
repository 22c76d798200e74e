// provider-chat-completions' stream mapping (ChatTranslator) on SSE bytes, with the transport's
// stream error mapping it uses. Invariants: provider_stream_support.hpp.
#include "provider_stream_support.hpp"

#include "amplifier/transport/error_mapping.hpp"
#include "chat_stream.hpp"

using namespace amp_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  check_stream(as_text(data, size), [](std::string_view bytes, const std::function<std::size_t()> &sizer) {
    Trace trace;
    chat_completions::ChatTranslator translator(
        trace.event_sink(),
        [](std::string_view payload) { return amplifier::transport::map_stream_error(payload, {}); },
        trace.delta_sink());
    try {
      feed_sse(bytes, sizer, [&](std::string_view, std::string_view text) {
        if (!trace.error) translator.on_sse_data(text);
      });
      const amplifier::ChatResponse response = translator.take_response("provider-chat-completions");
      trace.content = amplifier::to_json(response).at("content").as_array();
    } catch (const amplifier::KernelException &e) {
      trace.error = error_json(e.error());
    }
    return trace;
  });
  return 0;
}
