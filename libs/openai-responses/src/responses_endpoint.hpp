// Where provider-openai and provider-azure-openai send requests and how they authenticate:
// pure functions of the config, unit-tested without a network.
//   OpenAI:            POST {base_url}/responses, GET {base_url}/models, Authorization: Bearer,
//                      OpenAI-Organization / OpenAI-Project when configured.
//   Azure, v1:         POST {endpoint}/openai/v1/responses (model = the deployment),
//                      GET {endpoint}/openai/v1/models.
//   Azure, dated api_version:
//                      POST {endpoint}/openai/deployments/{deployment}/responses?api-version=V,
//                      GET {endpoint}/openai/models?api-version=V.
//   Azure auth:        api-key: KEY, or Authorization: Bearer AD_TOKEN.
#pragma once
#include "responses_config.hpp"

#include "amplifier/transport/headers.hpp"

#include <string>
#include <string_view>

namespace openai_responses {

std::string responses_url(const ResponsesConfig &config, std::string_view api_model);
std::string models_url(const ResponsesConfig &config);

// Authentication, organisation/project, and the content negotiation for a streamed or a whole
// response (`body`: whether a JSON body is sent).
amplifier::transport::Headers request_headers(const ResponsesConfig &config, bool streamed,
                                              bool body = true);

// What is missing before a call can be made ("no OpenAI API key: set ..."), or empty.
std::string missing_setting(const ResponsesConfig &config);

}  // namespace openai_responses
