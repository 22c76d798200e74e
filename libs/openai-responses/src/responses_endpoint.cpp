#include "responses_endpoint.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace openai_responses {

namespace {

std::string path_segment(std::string_view text) {
  return boost::urls::encode(text, boost::urls::unreserved_chars);
}

std::string version_query(const ResponsesConfig &config) {
  if (!config.api_version) return {};
  return "?api-version=" + path_segment(*config.api_version);
}

}  // namespace

std::string responses_url(const ResponsesConfig &config, std::string_view api_model) {
  if (config.flavor == Flavor::openai) return config.base_url + "/responses";
  if (config.azure_deployments_path())
    return config.base_url + "/openai/deployments/" + path_segment(api_model) + "/responses" +
           version_query(config);
  // The v1 API takes no version, except "preview" for preview features.
  return config.base_url + "/openai/v1/responses" +
         (config.api_version && *config.api_version == "preview" ? version_query(config) : "");
}

std::string models_url(const ResponsesConfig &config) {
  if (config.flavor == Flavor::openai) return config.base_url + "/models";
  if (config.azure_deployments_path())
    return config.base_url + "/openai/models" + version_query(config);
  return config.base_url + "/openai/v1/models";
}

amplifier::transport::Headers request_headers(const ResponsesConfig &config, bool streamed,
                                              bool body) {
  amplifier::transport::Headers headers =
      amplifier::provider::json_headers(body, streamed ? "text/event-stream" : "application/json");
  if (config.flavor == Flavor::azure && !config.api_key.empty()) {
    headers.set("api-key", config.api_key);
  } else if (config.has_credentials()) {
    headers.set("authorization", "Bearer " + std::string(config.secret()));
  }
  if (config.organization) headers.set("openai-organization", *config.organization);
  if (config.project) headers.set("openai-project", *config.project);
  return headers;
}

std::string missing_setting(const ResponsesConfig &config) {
  if (config.flavor == Flavor::openai) {
    if (config.api_key.empty())
      return "no OpenAI API key: set " + std::string(kOpenAiKeyEnv) +
             " or the provider's api_key config";
    return {};
  }
  if (config.base_url.empty())
    return "no Azure OpenAI endpoint: set " + std::string(kAzureEndpointEnv) +
           " or the provider's azure_endpoint config";
  if (!config.has_credentials())
    return "no Azure OpenAI credential: set " + std::string(kAzureKeyEnv) + " or " +
           std::string(kAzureAdTokenEnv) + ", or the provider's api_key or azure_ad_token config";
  return {};
}

}  // namespace openai_responses
