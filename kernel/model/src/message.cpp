// Message <-> JSON.
#include "parsers.hpp"

#include <boost/json/array.hpp>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

namespace {

Role parse_role(const json::object &object, const JsonPath &path) {
  const std::string name = detail::required_string(object, "role", path, "message");
  try {
    return role_from_string(name);
  } catch (const ModelError &error) {
    path.child("role").fail(error.problem());  // re-anchored at the message's own path
  }
}

MessageContent parse_content(const json::object &object, const JsonPath &path) {
  const json::value *content = detail::present(object, "content");
  if (content == nullptr) path.fail("message has no content");
  if (const auto *text = content->if_string()) return std::string(text->data(), text->size());
  if (content->is_array()) return detail::parse_content_blocks(*content, path.child("content"));
  path.child("content").fail("expected a string or an array of content blocks");
}

void append_text_blocks(const std::vector<ContentBlock> &blocks, std::string &out) {
  for (const auto &block : blocks)
    if (const auto *text = block_as<TextBlock>(block)) out += text->text;
}

}  // namespace

std::string Message::text() const {
  if (const auto *text = std::get_if<std::string>(&content)) return *text;
  std::string out;
  append_text_blocks(std::get<std::vector<ContentBlock>>(content), out);
  return out;
}

json::object to_json(const Message &message) {
  json::object out;
  out.emplace("role", to_string(message.role));
  if (const auto *text = std::get_if<std::string>(&message.content))
    out.emplace("content", *text);
  else
    out.emplace("content",
                detail::content_blocks_to_json(std::get<std::vector<ContentBlock>>(message.content)));
  detail::put(out, "name", message.name);
  detail::put(out, "tool_call_id", message.tool_call_id);
  detail::put(out, "metadata", message.metadata);
  detail::put_extra(out, message.extra);
  return out;
}

json::array to_json(const std::vector<Message> &messages) {
  json::array out;
  out.reserve(messages.size());
  for (const auto &message : messages) out.emplace_back(to_json(message));
  return out;
}

namespace detail {

Message parse_message(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  Message message;
  message.role = parse_role(object, path);
  message.content = parse_content(object, path);
  message.name = optional_string(object, "name", path);
  message.tool_call_id = optional_string(object, "tool_call_id", path);
  message.metadata = optional_object(object, "metadata", path);
  message.extra =
      unknown_fields(object, {"role", "content", "name", "tool_call_id", "metadata"});
  return message;
}

std::vector<Message> parse_messages(const json::value &value, const JsonPath &path) {
  return parse_array<Message>(value, path, parse_message);
}

}  // namespace detail

template <>
Message from_json<Message>(const json::value &json) {
  return detail::parse_message(json, JsonPath());
}

template <>
std::vector<Message> from_json<std::vector<Message>>(const json::value &json) {
  return detail::parse_messages(json, JsonPath());
}

}  // namespace amplifier
