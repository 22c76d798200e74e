#include "amplifier/provider/tools.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::provider {

namespace json = boost::json;
using amplifier::module_support::object_at;
using amplifier::module_support::string_at;

json::value parameters_of(const amplifier::ToolSpec &spec) {
  if (spec.parameters) return *spec.parameters;
  return json::object{{"type", "object"}, {"properties", json::object{}}};
}

json::object function_declaration(const amplifier::ToolSpec &spec) {
  json::object function{{"name", spec.name}};
  if (spec.description && !spec.description->empty()) function["description"] = *spec.description;
  function["parameters"] = parameters_of(spec);
  return function;
}

std::optional<ToolChoice> read_tool_choice(const json::value &choice,
                                           DegradationLog &degradations) {
  std::string_view mode, name;
  if (choice.is_string()) {
    mode = choice.get_string();
  } else if (const json::object *object = choice.if_object()) {
    mode = string_at(*object, "type");
    name = string_at(*object, "name");
    if (const json::object *function = object_at(*object, "function"); name.empty() && function)
      name = string_at(*function, "name");
  }
  if (!name.empty()) return ToolChoice{ToolChoice::Mode::named, std::string(name)};
  if (mode == "auto") return ToolChoice{ToolChoice::Mode::automatic, {}};
  if (mode == "none") return ToolChoice{ToolChoice::Mode::none, {}};
  if (mode == "required" || mode == "any") return ToolChoice{ToolChoice::Mode::required, {}};
  degradations.note("tool_choice", "tool_choice " + json::serialize(choice) + " is not understood",
                    "auto");
  return std::nullopt;
}

std::optional<json::value> openai_tool_choice(const json::value &choice,
                                              DegradationLog &degradations,
                                              json::value (*named)(std::string_view name)) {
  const auto read = read_tool_choice(choice, degradations);
  if (!read) return std::nullopt;
  switch (read->mode) {
    case ToolChoice::Mode::named: return named(read->name);
    case ToolChoice::Mode::none: return json::value("none");
    case ToolChoice::Mode::required: return json::value("required");
    case ToolChoice::Mode::automatic: break;
  }
  return json::value("auto");
}

}  // namespace amplifier::provider
