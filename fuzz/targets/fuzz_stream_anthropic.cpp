// provider-anthropic's stream mapping (StreamTranslator) on SSE bytes, with its stream error
// mapping. Invariants: provider_stream_support.hpp.
#include "provider_stream_support.hpp"

#include "error_mapping.hpp"
#include "stream_mapping.hpp"

using namespace amp_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  check_stream(as_text(data, size), [](std::string_view bytes, const std::function<std::size_t()> &sizer) {
    Trace trace;
    const auto options = provider_anthropic::anthropic_error_options("claude-fuzz");
    provider_anthropic::StreamTranslator translator(
        trace.event_sink(),
        [&](std::string_view payload) { return provider_anthropic::map_stream_failure(payload, options); },
        trace.delta_sink());
    try {
      feed_sse(bytes, sizer, [&](std::string_view type, std::string_view text) {
        if (!trace.error) translator.on_sse_event(type, text);
      });
      const amplifier::ChatResponse response = translator.take_response("provider-anthropic");
      trace.content = amplifier::to_json(response).at("content").as_array();
    } catch (const amplifier::KernelException &e) {
      trace.error = error_json(e.error());
    }
    return trace;
  });
  return 0;
}
