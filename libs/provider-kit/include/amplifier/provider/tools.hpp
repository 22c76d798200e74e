// Tools in a request, read the same way for every vendor: a tool's function declaration, and
// what tool_choice asks for. Each mapping writes the result in its vendor's shape.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/provider/degradation_log.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace amplifier::provider {

// {name, description?, parameters}: an empty object schema for a tool without parameters
// (the APIs require one).
boost::json::object function_declaration(const amplifier::ToolSpec &spec);
// The declaration's parameters, that schema included.
boost::json::value parameters_of(const amplifier::ToolSpec &spec);

struct ToolChoice {
  enum class Mode { automatic, none, required, named };
  Mode mode = Mode::automatic;
  std::string name;  // Mode::named
};

// "auto" | "none" | "required" ("any"), or one tool by name ({"type": ..., "name"},
// {"type": "function", "function": {"name"}}). Anything else is recorded as a degradation
// and nullopt returned: the vendor's default (auto) applies.
std::optional<ToolChoice> read_tool_choice(const boost::json::value &choice,
                                           DegradationLog &degradations);

// tool_choice as the OpenAI APIs take it (Responses, Chat Completions): "auto" | "none" |
// "required", or `named(name)` for one tool (the APIs nest the name differently). nullopt as
// read_tool_choice.
std::optional<boost::json::value> openai_tool_choice(
    const boost::json::value &choice, DegradationLog &degradations,
    boost::json::value (*named)(std::string_view name));

}  // namespace amplifier::provider
