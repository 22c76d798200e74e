// Reading unified Message JSON where context code needs it: roles, tool calls and the calls a
// tool message answers. Context managers keep messages as the JSON they arrived as (so nothing
// unknown is lost), so these read the JSON directly and tolerate what they do not expect.
#pragma once
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace amplifier::context {

// The "role" of a message, or "" when it has none.
std::string_view role_of(const boost::json::value &message);

// The content blocks of a message, or null when its content is not an array.
const boost::json::array *blocks_of(const boost::json::value &message);

// The "type" of a content block, or "".
std::string_view block_type_of(const boost::json::value &block);

struct ToolCallRef {
  std::string id;
  std::string name;
};

// The tool_call blocks of a message, in order.
std::vector<ToolCallRef> tool_calls_of(const boost::json::value &message);

// The tool calls a tool message answers: the tool_call_id of each tool_result block, or the
// message's own tool_call_id when it has no such block.
std::vector<std::string> answered_call_ids(const boost::json::value &message);

}  // namespace amplifier::context
