// What provider-openai / provider-azure-openai tell about themselves (get_info) and about the
// models the endpoint serves (list_models, from GET /models).
#pragma once
#include "responses_config.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace openai_responses {

// ProviderInfo {id, display_name, credential_env_vars, capabilities, defaults, config_fields}.
boost::json::object provider_info(const ResponsesConfig &config);

// The {data:[{id, owned_by, ...}]} page of GET /models -> ModelInfo {id, display_name,
// context_window, max_output_tokens, capabilities}, appended to `models`.
void append_models(const boost::json::object &page, boost::json::array &models);

}  // namespace openai_responses
