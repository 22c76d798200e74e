// ChatRequest <-> JSON.
#include "parsers.hpp"

#include <boost/json/array.hpp>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

namespace {

// response_format and tool_choice: a mode name or an object with details.
std::optional<json::value> string_or_object(const json::object &object, std::string_view key,
                                            const JsonPath &path) {
  auto value = detail::optional_value(object, key);
  if (value && !value->is_string() && !value->is_object())
    path.child(key).fail("expected a string or an object");
  return value;
}

std::optional<json::value> stop_sequences(const json::object &object, const JsonPath &path) {
  auto stop = detail::optional_value(object, "stop");
  if (!stop || stop->is_string()) return stop;
  const json::array &items = detail::expect_array(*stop, path.child("stop"));
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!items[i].is_string()) path.child("stop").at(i).fail("expected a string");
  return stop;
}

std::optional<std::vector<ToolSpec>> parse_tools(const json::object &object, const JsonPath &path) {
  const json::value *tools = detail::present(object, "tools");
  if (tools == nullptr) return std::nullopt;
  return detail::parse_array<ToolSpec>(*tools, path.child("tools"), detail::parse_tool_spec);
}

}  // namespace

json::object to_json(const ChatRequest &request) {
  json::object out;
  out.emplace("messages", to_json(request.messages));
  if (request.tools) {
    json::array tools;
    tools.reserve(request.tools->size());
    for (const auto &tool : *request.tools) tools.emplace_back(to_json(tool));
    out.emplace("tools", std::move(tools));
  }
  detail::put(out, "response_format", request.response_format);
  detail::put(out, "temperature", request.temperature);
  detail::put(out, "top_p", request.top_p);
  detail::put(out, "max_output_tokens", request.max_output_tokens);
  detail::put(out, "stream", request.stream);
  detail::put(out, "conversation_id", request.conversation_id);
  detail::put(out, "metadata", request.metadata);
  detail::put(out, "model", request.model);
  detail::put(out, "tool_choice", request.tool_choice);
  detail::put(out, "stop", request.stop);
  detail::put(out, "reasoning_effort", request.reasoning_effort);
  detail::put(out, "timeout", request.timeout);
  detail::put_extra(out, request.extra);
  return out;
}

template <>
ChatRequest from_json<ChatRequest>(const json::value &json) {
  const JsonPath root;
  const json::object &object = detail::expect_object(json, root);
  const json::value *messages = detail::present(object, "messages");
  if (messages == nullptr) root.fail("chat request has no messages");

  ChatRequest request;
  request.messages = detail::parse_messages(*messages, root.child("messages"));
  request.tools = parse_tools(object, root);
  request.response_format = string_or_object(object, "response_format", root);
  request.temperature = detail::optional_number(object, "temperature", root);
  request.top_p = detail::optional_number(object, "top_p", root);
  request.max_output_tokens = detail::optional_int(object, "max_output_tokens", root);
  request.stream = detail::optional_bool(object, "stream", root);
  request.conversation_id = detail::optional_string(object, "conversation_id", root);
  request.metadata = detail::optional_object(object, "metadata", root);
  request.model = detail::optional_string(object, "model", root);
  request.tool_choice = string_or_object(object, "tool_choice", root);
  request.stop = stop_sequences(object, root);
  request.reasoning_effort = detail::optional_string(object, "reasoning_effort", root);
  request.timeout = detail::optional_number(object, "timeout", root);
  request.extra = detail::unknown_fields(
      object, {"messages", "tools", "response_format", "temperature", "top_p",
               "max_output_tokens", "stream", "conversation_id", "metadata", "model",
               "tool_choice", "stop", "reasoning_effort", "timeout"});
  return request;
}

}  // namespace amplifier
