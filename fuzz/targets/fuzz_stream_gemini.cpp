// provider-gemini's stream mapping (GeminiTranslator) on SSE bytes (a last event without its
// blank line counts, as GeminiCall does), with the stream error mapping and Gemini's
// refinement. Invariants: provider_stream_support.hpp.
#include "provider_stream_support.hpp"

#include "amplifier/transport/error_mapping.hpp"
#include "gemini_call.hpp"
#include "gemini_config.hpp"
#include "gemini_stream.hpp"

using namespace amp_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const gemini::GeminiConfig config = [] {
    gemini::GeminiConfig c;
    c.api_key = "gm-fuzz-key";
    return c;
  }();
  check_stream(as_text(data, size), [](std::string_view bytes, const std::function<std::size_t()> &sizer) {
    Trace trace;
    gemini::GeminiTranslator translator(
        trace.event_sink(),
        [](std::string_view payload) {
          amplifier::KernelError error = amplifier::transport::map_stream_error(payload, {});
          gemini::refine_error(config, error);
          return error;
        },
        trace.delta_sink());
    try {
      feed_sse(
          bytes, sizer,
          [&](std::string_view, std::string_view text) {
            if (!trace.error) translator.on_sse_data(text);
          },
          true);
      const amplifier::ChatResponse response = translator.take_response("provider-gemini");
      trace.content = amplifier::to_json(response).at("content").as_array();
    } catch (const amplifier::KernelException &e) {
      trace.error = error_json(e.error());
    }
    return trace;
  });
  return 0;
}
