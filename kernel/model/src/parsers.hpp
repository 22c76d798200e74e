// Private: the path-aware parsers behind from_json<T>, shared between the model's sources so
// nested documents report full paths ("messages[3].content[1]: ...").
#pragma once
#include "amplifier/model.hpp"
#include "json_access.hpp"

#include <vector>

namespace amplifier::detail {

ContentBlock parse_content_block(const boost::json::value &value, const JsonPath &path);
ContentBlock parse_content_block(const boost::json::object &object, const JsonPath &path);
// `type` may be absent (ChatResponse.tool_calls items); when present it must be "tool_call".
ToolCallBlock parse_tool_call(const boost::json::value &value, const JsonPath &path);
std::vector<ContentBlock> parse_content_blocks(const boost::json::value &value,
                                               const JsonPath &path);

Message parse_message(const boost::json::value &value, const JsonPath &path);
std::vector<Message> parse_messages(const boost::json::value &value, const JsonPath &path);
ToolSpec parse_tool_spec(const boost::json::value &value, const JsonPath &path);
Usage parse_usage(const boost::json::value &value, const JsonPath &path);
Degradation parse_degradation(const boost::json::value &value, const JsonPath &path);

boost::json::array content_blocks_to_json(const std::vector<ContentBlock> &blocks);

// Parses every item of a JSON array with `parse_item(item, path_of_item)`.
template <class T, class ParseItem>
std::vector<T> parse_array(const boost::json::value &value, const JsonPath &path,
                           ParseItem parse_item) {
  const boost::json::array &items = expect_array(value, path);
  std::vector<T> parsed;
  parsed.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) parsed.push_back(parse_item(items[i], path.at(i)));
  return parsed;
}

}  // namespace amplifier::detail
