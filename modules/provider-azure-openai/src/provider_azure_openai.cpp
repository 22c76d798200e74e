// provider-azure-openai: the Responses API on an Azure OpenAI resource, with the same mapping
// as provider-openai (one implementation): the v1 path or the deployments path with
// api-version, api-key or Entra ID authentication, deployments per model, and Azure's content
// filter results kept.
#include "responses_provider.hpp"

namespace {

class AzureOpenAiProvider final : public openai_responses::ResponsesProvider {
 public:
  AzureOpenAiProvider(amp::sdk::Host host, std::string_view config_json)
      : ResponsesProvider(host, config_json, openai_responses::Flavor::azure) {}
};

}  // namespace

AMP_DEFINE_MODULE(AzureOpenAiProvider, "provider-azure-openai", "0.1.0",
                  "Azure OpenAI Responses API: deployments, api-key or Entra ID, content filters");
