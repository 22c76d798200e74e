// Shell-style path patterns for the glob and grep tools.
//
//   *        any run of characters within one path component
//   ?        one character (one UTF-8 code point) within a component
//   [abc]    one of the listed characters; ranges [a-z]; negation [!a-z] or [^a-z]
//   {a,b}    alternatives, expanded before matching ("*.{cpp,hpp}"); may nest
//   **       as a whole component: zero or more directories
//   \x       the character x literally
// As in the shell, a wildcard never matches a leading '.', so hidden files and folders (.git)
// are left out unless the pattern names them (".github/**").
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tool_filesystem {

// The pattern with every {a,b} group expanded, in order. Unbalanced braces are literal.
// Throws std::invalid_argument past `max_patterns` alternatives (a runaway pattern).
std::vector<std::string> expand_braces(std::string_view pattern, std::size_t max_patterns = 256);

// True when one path component `name` matches one pattern component (no '/' in either, no
// braces; "**" is not special here).
bool match_component(std::string_view pattern, std::string_view name);

// True when the component contains a wildcard (*, ?, [).
bool has_wildcard(std::string_view component);

// A brace-free pattern split on '/', empty components dropped ("a//b/" -> a, b).
std::vector<std::string> split_components(std::string_view pattern);

// True when `relative_path` ('/'-separated) matches the brace-free, split `components`.
bool match_path(const std::vector<std::string> &components, std::string_view relative_path);

// A compiled pattern: its brace alternatives, each split into components.
class PathPattern {
 public:
  explicit PathPattern(std::string_view pattern);
  const std::vector<std::vector<std::string>> &alternatives() const noexcept { return alternatives_; }
  bool matches(std::string_view relative_path) const;

 private:
  std::vector<std::vector<std::string>> alternatives_;
};

}  // namespace tool_filesystem
