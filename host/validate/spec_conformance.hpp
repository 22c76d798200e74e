// Whether a module's self-description has the shape the host and every other consumer rely
// on: ProviderInfo (get_info) and the ToolSpec list (list_tools).
#pragma once
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace amplifier::host::validate {

// ProviderInfo: an object with a non-empty id and display_name, config_fields an array of
// {id, display_name, field_type} with field_type one of text, secret, choice, boolean (a
// choice with its choices), and, when present, credential_env_vars an array of strings,
// defaults an object, capabilities an object or an array. Each problem as "<path>: <what>".
std::vector<std::string> provider_info_problems(const boost::json::value &info);

// The ToolSpec list: an array of {name, description?, parameters?} with unique names a model
// API accepts ([A-Za-z0-9_-], at most 64), and parameters, when present, a JSON Schema that
// compiles (amplifier::JsonSchema) for an object input (type "object"), whose required names
// are among its properties.
std::vector<std::string> tool_spec_problems(const boost::json::value &specs);

}  // namespace amplifier::host::validate
