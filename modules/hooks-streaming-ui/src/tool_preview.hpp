// Text for the display's tool lines: a call as one line with its arguments, a result as its
// first lines.
#pragma once
#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace streaming_ui {

// "bash(ls -la)" for an input with a `command`; otherwise "read_file(path: "a.txt", limit: 5)":
// each argument as name: compact JSON. One line (newlines shown as "⏎"), cut to `width`
// columns (code points) with "…".
std::string tool_call_line(std::string_view tool, const boost::json::value &input, std::size_t width);

// The text a tool result shows: its output string, its error message when it failed, or the
// output as JSON when it is not a string.
struct ResultText {
  bool failed = false;
  std::string text;
};
ResultText result_text(const boost::json::value &result);

// `text` split into lines (a trailing newline does not add an empty last line).
std::vector<std::string> split_lines(std::string_view text);

// The first `width` code points of `line`, with "…" when it was longer.
std::string cut_to_width(std::string_view line, std::size_t width);

// 1234567 -> "1,234,567".
std::string group_thousands(long long number);

}  // namespace streaming_ui
