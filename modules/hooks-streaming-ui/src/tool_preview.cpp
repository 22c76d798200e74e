#include "tool_preview.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace streaming_ui {

namespace json = boost::json;

namespace {

// One line: control characters would break the layout; a newline becomes a visible mark.
std::string single_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') out += "⏎";
    else if (c == '\r' || c == '\t') out += ' ';
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) continue;
    else out += c;
  }
  return out;
}

std::string arguments(const json::value &input) {
  const json::object *o = input.if_object();
  if (!o) return input.is_null() ? std::string() : json::serialize(input);
  if (const auto *command = o->if_contains("command"); command && command->is_string())
    return std::string(command->get_string());
  std::string out;
  for (const auto &entry : *o)
    out += (out.empty() ? "" : ", ") + std::string(entry.key()) + ": " + json::serialize(entry.value());
  return out;
}

}  // namespace

std::string cut_to_width(std::string_view line, std::size_t width) {
  std::size_t points = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;  // inside a character
    if (++points == width) {
      // Keep width - 1 characters and the ellipsis, when something follows.
      std::size_t end = i;
      while (++end < line.size() && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) {
      }
      if (end >= line.size()) return std::string(line);
      return std::string(line.substr(0, i)) + "…";
    }
  }
  return std::string(line);
}

std::string tool_call_line(std::string_view tool, const json::value &input, std::size_t width) {
  return cut_to_width(single_line(std::string(tool) + "(" + arguments(input) + ")"), width);
}

ResultText result_text(const json::value &result) {
  const json::object *o = result.if_object();
  if (!o) return {false, result.is_string() ? std::string(result.get_string()) : json::serialize(result)};
  ResultText shown;
  if (const auto *success = o->if_contains("success"); success && success->is_bool()) shown.failed = !success->get_bool();
  const json::value *output = o->if_contains("output");
  const json::value *error = o->if_contains("error");
  const json::value *message = error && error->is_object() ? error->get_object().if_contains("message") : nullptr;
  if (shown.failed && message && message->is_string()) shown.text = std::string(message->get_string());
  else if (output && output->is_string()) shown.text = std::string(output->get_string());
  else if (output && !output->is_null()) shown.text = json::serialize(*output);
  return shown;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string group_thousands(long long number) {
  std::string digits = std::to_string(number < 0 ? -number : number);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return number < 0 ? "-" + digits : digits;
}

}  // namespace streaming_ui
