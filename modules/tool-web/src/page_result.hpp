// The tool result of a fetch: the page as text (HTML converted, JSON and text as they are),
// cut to max_chars with a note, or a failure the model can read.
#pragma once

#include <boost/json/object.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace tool_web {

struct FetchedPage {
  std::string requested_url;
  std::string final_url;  // after redirects
  std::vector<std::string> redirects;
  int status = 0;
  std::string content_type;  // the header as sent
  std::string body;
  bool body_cut = false;  // more than max_body_bytes came: `body` is its beginning
};

struct TextLimits {
  std::size_t max_chars = 0;
  std::size_t max_chars_limit = 0;
  std::size_t max_body_bytes = 0;
};

// The ToolResult JSON: success with the page's text, or a failure for a binary content type.
std::string page_result(const FetchedPage &page, const TextLimits &limits);

// A failed ToolResult JSON carrying `message` (and `extra` fields).
std::string failure_result(const std::string &message, boost::json::object extra = {});

}  // namespace tool_web
