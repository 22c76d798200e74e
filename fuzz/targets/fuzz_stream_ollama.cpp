// provider-ollama's stream mapping (OllamaTranslator) on JSON lines through the transport's
// NDJSON reader, with the stream error mapping it uses. Invariants:
// provider_stream_support.hpp.
#include "provider_stream_support.hpp"

#include "amplifier/transport/error_mapping.hpp"
#include "ollama_stream.hpp"

using namespace amp_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  check_stream(as_text(data, size), [](std::string_view bytes, const std::function<std::size_t()> &sizer) {
    Trace trace;
    ollama::OllamaTranslator translator(
        trace.event_sink(),
        [](std::string_view payload) { return amplifier::transport::map_stream_error(payload, {}); },
        trace.delta_sink());
    try {
      amplifier::transport::NdjsonReader reader([&](std::string_view line) {
        if (!trace.error) translator.on_line(line);
      });
      feed_chunks(bytes, sizer, [&](std::string_view chunk) { reader.feed(chunk); });
      reader.finish();
      const amplifier::ChatResponse response = translator.take_response("provider-ollama");
      trace.content = amplifier::to_json(response).at("content").as_array();
    } catch (const amplifier::KernelException &e) {
      trace.error = error_json(e.error());
    }
    return trace;
  });
  return 0;
}
