#include "amplifier/context/message_json.hpp"

namespace amplifier::context {
namespace json = boost::json;

namespace {

std::string_view string_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}

}  // namespace

std::string_view role_of(const json::value &message) {
  const json::object *object = message.if_object();
  return object ? string_field(*object, "role") : std::string_view();
}

const json::array *blocks_of(const json::value &message) {
  const json::object *object = message.if_object();
  const json::value *content = object ? object->if_contains("content") : nullptr;
  return content ? content->if_array() : nullptr;
}

std::string_view block_type_of(const json::value &block) {
  const json::object *object = block.if_object();
  return object ? string_field(*object, "type") : std::string_view();
}

std::vector<ToolCallRef> tool_calls_of(const json::value &message) {
  std::vector<ToolCallRef> calls;
  const json::array *blocks = blocks_of(message);
  if (blocks == nullptr) return calls;
  for (const json::value &block : *blocks) {
    if (block_type_of(block) != "tool_call") continue;
    const json::object &object = block.get_object();
    calls.push_back({std::string(string_field(object, "id")), std::string(string_field(object, "name"))});
  }
  return calls;
}

std::vector<std::string> answered_call_ids(const json::value &message) {
  std::vector<std::string> ids;
  if (const json::array *blocks = blocks_of(message)) {
    for (const json::value &block : *blocks)
      if (block_type_of(block) == "tool_result")
        ids.emplace_back(string_field(block.get_object(), "tool_call_id"));
  }
  if (ids.empty()) {
    const json::object *object = message.if_object();
    std::string_view own = object ? string_field(*object, "tool_call_id") : std::string_view();
    if (!own.empty()) ids.emplace_back(own);
  }
  return ids;
}

}  // namespace amplifier::context
