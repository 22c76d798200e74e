// What provider-anthropic tells about itself (get_info) and about Anthropic's models
// (list_models, from GET /v1/models).
#pragma once
#include "anthropic_config.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace provider_anthropic {

// ProviderInfo {id, display_name, credential_env_vars, capabilities, defaults, config_fields}.
boost::json::object provider_info(const AnthropicConfig &config);

// One page of GET /v1/models ({data:[{id, display_name, ...}], has_more, last_id}) -> ModelInfo
// {id, display_name, context_window, max_output_tokens, capabilities}, appended to `models`.
// Returns the id to continue after when the API says there is more, else an empty string.
std::string append_model_page(const boost::json::object &page, boost::json::array &models);

}  // namespace provider_anthropic
