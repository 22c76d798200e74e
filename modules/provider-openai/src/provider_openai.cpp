// provider-openai: OpenAI's Responses API as a provider module: streaming, tools (parallel
// calls), reasoning kept across turns (encrypted when nothing is stored), continuation of
// answers cut off by max_output_tokens.
#include "responses_provider.hpp"

namespace {

class OpenAiProvider final : public openai_responses::ResponsesProvider {
 public:
  OpenAiProvider(amp::sdk::Host host, std::string_view config_json)
      : ResponsesProvider(host, config_json, openai_responses::Flavor::openai) {}
};

}  // namespace

AMP_DEFINE_MODULE(OpenAiProvider, "provider-openai", "0.1.0",
                  "OpenAI Responses API: streaming, tools, reasoning, continuations");
