// Legacy stored messages: parsing either shape, and the conversion to content blocks.
#include "amplifier/legacy.hpp"

#include "parsers.hpp"

#include <boost/json/array.hpp>

#include <unordered_set>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

namespace {

bool is_tool_role(const json::object &object) {
  const json::value *role = object.if_contains("role");
  return role && role->is_string() && role->get_string() == to_string(Role::tool);
}

// The shape test behind StoredMessage::is_legacy, on raw JSON so that unified messages can
// skip the legacy parser entirely.
bool has_legacy_shape(const json::object &object) {
  if (object.contains("tool_calls")) return true;
  const json::value *content = detail::present(object, "content");
  if (content == nullptr) return true;
  return content->is_string() && is_tool_role(object);
}

std::string call_name(const json::object &call, const JsonPath &path) {
  if (auto name = detail::optional_string(call, "name", path)) return *name;
  if (auto tool = detail::optional_string(call, "tool", path)) return *tool;
  path.fail("tool call has no name (expected \"name\", \"tool\" or \"function\": {\"name\"})");
}

LegacyToolCall parse_legacy_tool_call(const json::value &value, const JsonPath &path) {
  const json::object &call = detail::expect_object(value, path);
  LegacyToolCall parsed;
  parsed.id = detail::required_string(call, "id", path, "tool call");
  // OpenAI nests the name and the arguments under "function".
  if (const json::value *function = detail::present(call, "function")) {
    const JsonPath function_path = path.child("function");
    const json::object &inner = detail::expect_object(*function, function_path);
    parsed.name = call_name(inner, function_path);
    parsed.arguments = detail::optional_value(inner, "arguments").value_or(nullptr);
    parsed.extra = detail::unknown_fields(call, {"id", "type", "function"});
    return parsed;
  }
  parsed.name = call_name(call, path);
  parsed.arguments = detail::optional_value(call, "arguments").value_or(nullptr);
  parsed.extra = detail::unknown_fields(call, {"id", "name", "tool", "arguments", "type"});
  return parsed;
}

std::optional<MessageContent> parse_optional_content(const json::object &object,
                                                     const JsonPath &path) {
  const json::value *content = detail::present(object, "content");
  if (content == nullptr) return std::nullopt;
  if (const auto *text = content->if_string()) return std::string(text->data(), text->size());
  if (content->is_array()) return detail::parse_content_blocks(*content, path.child("content"));
  path.child("content").fail("expected a string, null or an array of content blocks");
}

std::vector<LegacyToolCall> parse_legacy_tool_calls(const json::object &object,
                                                    const JsonPath &path) {
  const json::value *calls = detail::present(object, "tool_calls");
  if (calls == nullptr) return {};
  return detail::parse_array<LegacyToolCall>(*calls, path.child("tool_calls"),
                                             parse_legacy_tool_call);
}

// A JSON-string argument list parsed when it holds an object; otherwise the input stays
// empty and the original text rides along in the block, where a reader can still find it.
void set_tool_input(ToolCallBlock &block, const json::value &arguments) {
  if (arguments.is_object()) {
    block.input = detail::owned_copy(arguments.get_object());
    return;
  }
  if (arguments.is_null()) return;
  if (const auto *text = arguments.if_string()) {
    if (text->find_first_not_of(" \t\r\n") == json::string::npos) return;
    try {
      json::value parsed = parse_json(std::string_view(text->data(), text->size()));
      if (parsed.is_object()) {
        block.input = std::move(parsed.get_object());
        return;
      }
    } catch (const ModelError &) {  // unparsable: kept verbatim below
    }
  }
  block.extra["arguments"] = detail::owned_copy(arguments);
}

// A legacy call's own fields become the block's extra fields, except those named like a field
// of the unified block: a string `visibility` is the block's visibility, and any other such
// field is kept as `legacy_<name>`, so that nothing is lost and the block stays valid (a
// visibility object copied as is made a block no reader accepts; found by fuzz_model_json).
void move_legacy_fields(json::object &legacy, ToolCallBlock &block) {
  if (const json::value *visibility = legacy.if_contains("visibility");
      visibility && visibility->is_string()) {
    block.visibility = std::string(visibility->get_string());
    legacy.erase("visibility");
  }
  for (auto &[key, value] : legacy) {
    const bool reserved = key == "type" || key == "id" || key == "name" || key == "input" ||
                          key == "visibility";
    block.extra[reserved ? "legacy_" + std::string(key) : std::string(key)] = std::move(value);
  }
}

ToolCallBlock to_tool_call_block(LegacyToolCall call) {
  ToolCallBlock block;
  block.id = std::move(call.id);
  block.name = std::move(call.name);
  move_legacy_fields(call.extra, block);
  set_tool_input(block, call.arguments);
  return block;
}

std::vector<ContentBlock> assistant_blocks(StoredMessage &stored) {
  std::vector<ContentBlock> blocks;
  if (stored.content) {
    if (auto *text = std::get_if<std::string>(&*stored.content)) {
      if (!text->empty()) blocks.emplace_back(TextBlock{std::move(*text), std::nullopt, {}});
    } else {
      blocks = std::move(std::get<std::vector<ContentBlock>>(*stored.content));
    }
  }
  std::unordered_set<std::string> present_calls;
  for (const auto &block : blocks)
    if (const auto *call = block_as<ToolCallBlock>(block)) present_calls.insert(call->id);
  for (auto &call : stored.tool_calls)
    if (!present_calls.contains(call.id)) blocks.emplace_back(to_tool_call_block(std::move(call)));
  return blocks;
}

std::vector<ContentBlock> tool_result_blocks(StoredMessage &stored) {
  if (!stored.tool_call_id || stored.tool_call_id->empty())
    throw ModelError({}, "legacy tool message has no tool_call_id, so its result cannot be paired "
                         "with a tool call");
  if (stored.content && std::holds_alternative<std::vector<ContentBlock>>(*stored.content))
    return std::move(std::get<std::vector<ContentBlock>>(*stored.content));
  std::string output =
      stored.content ? std::move(std::get<std::string>(*stored.content)) : std::string();
  std::vector<ContentBlock> blocks;
  blocks.emplace_back(ToolResultBlock{*stored.tool_call_id, json::value(std::move(output)),
                                      std::nullopt, {}});
  return blocks;
}

}  // namespace

bool StoredMessage::is_legacy() const {
  if (has_tool_calls_field || !content) return true;
  return role == Role::tool && std::holds_alternative<std::string>(*content);
}

template <>
StoredMessage from_json<StoredMessage>(const json::value &value) {
  const JsonPath path;
  const json::object &object = detail::expect_object(value, path);
  StoredMessage stored;
  const std::string role = detail::required_string(object, "role", path, "message");
  try {
    stored.role = role_from_string(role);
  } catch (const ModelError &error) {
    path.child("role").fail(error.problem());
  }
  stored.content = parse_optional_content(object, path);
  stored.has_tool_calls_field = object.contains("tool_calls");
  stored.tool_calls = parse_legacy_tool_calls(object, path);
  stored.name = detail::optional_string(object, "name", path);
  stored.tool_call_id = detail::optional_string(object, "tool_call_id", path);
  stored.metadata = detail::optional_object(object, "metadata", path);
  stored.extra = detail::unknown_fields(
      object, {"role", "content", "tool_calls", "name", "tool_call_id", "metadata"});
  return stored;
}

Message to_unified(StoredMessage stored) {
  Message message;
  message.role = stored.role;
  message.name = std::move(stored.name);
  message.tool_call_id = stored.tool_call_id;
  message.metadata = std::move(stored.metadata);
  message.extra = std::move(stored.extra);
  if (!stored.is_legacy()) {
    message.content = std::move(*stored.content);
  } else if (stored.role == Role::tool) {
    message.content = tool_result_blocks(stored);
  } else {
    message.content = assistant_blocks(stored);
  }
  return message;
}

json::value read_stored_message(const json::value &value, bool *converted) {
  const json::object &object = detail::expect_object(value, JsonPath());
  const bool legacy = has_legacy_shape(object);
  if (converted) *converted = legacy;
  if (!legacy) {
    (void)detail::parse_message(value, JsonPath());  // validates; the document is kept as is
    return detail::owned_copy(value);
  }
  return to_json(to_unified(from_json<StoredMessage>(value)));
}

json::value read_stored_message(json::value &&value, bool *converted) {
  const json::object &object = detail::expect_object(value, JsonPath());
  const bool legacy = has_legacy_shape(object);
  if (converted) *converted = legacy;
  if (legacy) return to_json(to_unified(from_json<StoredMessage>(value)));
  (void)detail::parse_message(value, JsonPath());  // validates; the document is kept as is
  if (value.storage().get() != json::storage_ptr().get()) return detail::owned_copy(value);  // not ours
  return std::move(value);
}

}  // namespace amplifier
