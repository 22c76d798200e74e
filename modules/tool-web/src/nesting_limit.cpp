#include "nesting_limit.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace tool_web {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

bool is_any_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Elements that never hold others, or that the next sibling closes: they add no depth.
bool adds_no_depth(std::string_view name) {
  return is_any_of(name,
                   {"area",  "base",     "br",      "col",    "embed",    "hr",  "img",    "input",
                    "link",  "meta",     "param",   "source", "track",    "wbr", "keygen", "frame",
                    "image", "p",        "li",      "dt",     "dd",       "tr",  "td",     "th",
                    "thead", "tbody",    "tfoot",   "option", "optgroup", "rb",  "rt",     "rtc",
                    "rp",    "colgroup", "caption", "html",   "head",     "body"});
}

// Their content is text (or skipped wholesale) up to their end tag.
bool is_raw(std::string_view name) {
  return is_any_of(name, {"script", "style", "textarea", "title", "xmp", "iframe", "noembed",
                          "noframes", "svg", "math", "template"});
}

std::string lower_name(std::string_view html, std::size_t at, std::size_t &end) {
  end = at;
  while (end < html.size() && is_name_char(html[end])) ++end;
  std::string name(html.substr(at, end - at));
  for (char &c : name)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return name;
}

// Where the markup starting at `at` ends: past its '>' (or `close` for comments).
std::size_t past(std::string_view html, std::size_t at, std::string_view close) {
  const std::size_t found = html.find(close, at);
  return found == std::string_view::npos ? html.size() : found + close.size();
}

// Past the end tag `</name` of a raw-text element (case-insensitively), or the end.
std::size_t past_raw(std::string_view html, std::size_t at, const std::string &name) {
  for (std::size_t i = html.find("</", at); i != std::string_view::npos;
       i = html.find("</", i + 2)) {
    std::size_t end = 0;
    if (lower_name(html, i + 2, end) == name) return past(html, end, ">");
  }
  return html.size();
}

class Scanner {
 public:
  Scanner(std::string_view html, std::size_t max_depth) : html_(html), max_depth_(max_depth) {}

  std::size_t run() {
    std::size_t at = html_.find('<');
    while (at != std::string_view::npos && at < html_.size()) {
      const std::size_t next = markup(at);
      if (next == kTooDeep) return at;
      at = html_.find('<', next);
    }
    return html_.size();
  }

 private:
  static constexpr std::size_t kTooDeep = static_cast<std::size_t>(-1);

  std::size_t markup(std::size_t at) {
    if (html_.substr(at, 4) == "<!--") return past(html_, at + 4, "-->");
    if (at + 1 < html_.size() && (html_[at + 1] == '!' || html_[at + 1] == '?'))
      return past(html_, at, ">");
    if (at + 1 < html_.size() && html_[at + 1] == '/') return end_tag(at + 2);
    return start_tag(at);
  }

  std::size_t start_tag(std::size_t at) {
    std::size_t end = 0;
    const std::string name = lower_name(html_, at + 1, end);
    if (name.empty()) return at + 1;  // a lone '<' is text
    const std::size_t after = past(html_, end, ">");
    if (is_raw(name)) return past_raw(html_, after, name);
    if (adds_no_depth(name)) return after;
    if (open_.size() >= max_depth_) return kTooDeep;
    open_.push_back(name);
    return after;
  }

  // Closes up to the nearest open element of that name; an end tag that matches nothing is
  // ignored, as the tree builder ignores it.
  std::size_t end_tag(std::size_t at) {
    std::size_t end = 0;
    const std::string name = lower_name(html_, at, end);
    const auto open = std::find(open_.rbegin(), open_.rend(), name);
    if (open != open_.rend()) open_.erase(std::next(open).base(), open_.end());
    return past(html_, end, ">");
  }

  std::string_view html_;
  std::size_t max_depth_;
  std::vector<std::string> open_;
};

}  // namespace

std::size_t shallow_prefix(std::string_view html, std::size_t max_depth) {
  return Scanner(html, max_depth).run();
}

}  // namespace tool_web
