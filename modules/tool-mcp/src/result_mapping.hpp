// An MCP tools/call result as the kernel's ToolResult (amplifier/model.hpp):
//   - text content becomes the output; when there is only text the output is one string;
//   - images become the kernel's image blocks ({"type":"image","source":{"type":"base64",
//     "media_type","data"}}), and audio, embedded resources and resource links are kept as
//     the blocks the server sent; then the output is the array of blocks (text ones as
//     {"type":"text","text"}), so nothing is lost;
//   - the text (of text blocks and of embedded text resources) is capped at
//     max_output_chars characters, with a note saying it was cut;
//   - isError makes success false, the text being the error message as well;
//   - structuredContent is kept in the result's `structured_content` (and is the output when
//     there is no content at all).
#pragma once
#include <boost/json/object.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace tool_mcp {

struct ResultContext {
  std::string_view server;
  std::string_view tool;  // the server's own name for it
  std::size_t max_output_chars = 50'000;
};

// The ToolResult JSON text for a CallToolResult object.
std::string map_call_result(const boost::json::object &result, const ResultContext &context);

// A failed ToolResult the model reads: success false, the message as output and error.
// `kind` ("timeout", "server_unavailable", "protocol", ...) goes into the result as
// error_kind, for hooks and tests to tell failures apart.
std::string failure_result(std::string_view kind, const std::string &message,
                           const ResultContext &context);

}  // namespace tool_mcp
