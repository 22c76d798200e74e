// openai-core's Responses stream mapping (ResponsesTranslator, shared by provider-openai and
// provider-azure-openai) on SSE bytes, with its stream error mapping. Invariants:
// provider_stream_support.hpp (reasoning's encrypted_content aside, see below).
#include "provider_stream_support.hpp"

#include "responses_config.hpp"
#include "responses_errors.hpp"
#include "responses_stream.hpp"

using namespace amp_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const openai_responses::ResponsesConfig config;
  check_stream(as_text(data, size), [](std::string_view bytes, const std::function<std::size_t()> &sizer) {
    Trace trace;
    openai_responses::ResponsesTranslator translator(
        trace.event_sink(),
        [&](std::string_view payload) { return openai_responses::map_stream_failure(config, "gpt-fuzz", payload); },
        trace.delta_sink());
    try {
      feed_sse(bytes, sizer, [&](std::string_view type, std::string_view text) {
        if (!trace.error) translator.on_sse_event(type, text);
      });
      if (translator.finished()) {
        openai_responses::RoundResult result = translator.take_result();
        json::array content;
        for (const auto &block : result.content) content.push_back(amplifier::to_json(block));
        trace.content = std::move(content);
      }
    } catch (const amplifier::KernelException &e) {
      trace.error = error_json(e.error());
    }
    return trace;
  },
  // A reasoning block's end event carries encrypted_content as of output_item.done; the
  // result takes response.completed's (responses_stream.cpp: "the last value wins").
  [](json::value content) {
    for (json::value &block : content.as_array())
      if (block.is_object()) block.as_object().erase("encrypted_content");
    return content;
  });
  return 0;
}
