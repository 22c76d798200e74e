// ToolSpec and ToolResult <-> JSON.
#include "parsers.hpp"

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

json::object to_json(const ToolSpec &spec) {
  json::object out;
  out.emplace("name", spec.name);
  detail::put(out, "description", spec.description);
  detail::put(out, "parameters", spec.parameters);
  detail::put_extra(out, spec.extra);
  return out;
}

json::object to_json(const ToolError &error) {
  json::object out;
  out.emplace("message", error.message);
  detail::put_extra(out, error.extra);
  return out;
}

json::object to_json(const ToolResult &result) {
  json::object out;
  out.emplace("success", result.success);
  out.emplace("output", result.output);
  if (result.error) out.emplace("error", to_json(*result.error));
  detail::put_extra(out, result.extra);
  return out;
}

namespace detail {

ToolSpec parse_tool_spec(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  return ToolSpec{required_string(object, "name", path, "tool spec"),
                  optional_string(object, "description", path),
                  optional_object(object, "parameters", path),
                  unknown_fields(object, {"name", "description", "parameters"})};
}

ToolError parse_tool_error(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  return ToolError{required_string(object, "message", path, "tool error"),
                   unknown_fields(object, {"message"})};
}

ToolResult parse_tool_result(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  ToolResult result;
  const auto success = optional_bool(object, "success", path);
  if (!success) path.fail("tool result has no success");
  result.success = *success;
  if (const json::value *output = object.if_contains("output")) result.output = *output;
  if (const json::value *error = present(object, "error"))
    result.error = parse_tool_error(*error, path.child("error"));
  result.extra = unknown_fields(object, {"success", "output", "error"});
  return result;
}

}  // namespace detail

template <>
ToolSpec from_json<ToolSpec>(const json::value &json) {
  return detail::parse_tool_spec(json, JsonPath());
}

template <>
ToolError from_json<ToolError>(const json::value &json) {
  return detail::parse_tool_error(json, JsonPath());
}

template <>
ToolResult from_json<ToolResult>(const json::value &json) {
  return detail::parse_tool_result(json, JsonPath());
}

}  // namespace amplifier
