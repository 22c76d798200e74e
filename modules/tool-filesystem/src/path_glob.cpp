#include "path_glob.hpp"

#include <stdexcept>

namespace tool_filesystem {

namespace {

// Bytes of the UTF-8 sequence led by `lead` (1 for ASCII and for stray bytes).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// The index of the '}' closing the '{' at `open`, or npos; `commas` receives the top-level
// commas between them.
std::size_t closing_brace(std::string_view p, std::size_t open, std::vector<std::size_t> &commas) {
  int depth = 0;
  for (std::size_t i = open; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '{') {
      ++depth;
    } else if (p[i] == '}') {
      if (--depth == 0) return i;
    } else if (p[i] == ',' && depth == 1) {
      commas.push_back(i);
    }
  }
  return std::string_view::npos;
}

void expand_into(std::string_view p, std::vector<std::string> &out, std::size_t max_patterns) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
      continue;
    }
    if (p[i] != '{') continue;
    std::vector<std::size_t> commas;
    const std::size_t close = closing_brace(p, i, commas);
    if (close == std::string_view::npos) return out.push_back(std::string(p));
    const std::string_view head = p.substr(0, i), tail = p.substr(close + 1);
    std::size_t start = i + 1;
    commas.push_back(close);
    for (std::size_t end : commas) {
      std::string alternative = std::string(head);
      alternative += p.substr(start, end - start);
      alternative += tail;
      expand_into(alternative, out, max_patterns);
      if (out.size() > max_patterns)
        throw std::invalid_argument("the pattern expands to more than " +
                                    std::to_string(max_patterns) + " alternatives");
      start = end + 1;
    }
    return;
  }
  out.push_back(std::string(p));
}

// Matches the bracket expression starting at pattern[i] ('[') against the code point `c`;
// sets `next` to the index after ']'. Returns false with next = npos when unterminated.
bool match_bracket(std::string_view pattern, std::size_t i, std::string_view c, std::size_t &next) {
  std::size_t j = i + 1;
  const bool negated = j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^');
  if (negated) ++j;
  bool matched = false;
  bool first = true;
  for (; j < pattern.size() && (pattern[j] != ']' || first); first = false) {
    std::string_view low = pattern.substr(j, sequence_length(static_cast<unsigned char>(pattern[j])));
    j += low.size();
    if (j + 1 < pattern.size() && pattern[j] == '-' && pattern[j + 1] != ']') {
      std::string_view high =
          pattern.substr(j + 1, sequence_length(static_cast<unsigned char>(pattern[j + 1])));
      j += 1 + high.size();
      if (low <= c && c <= high) matched = true;  // UTF-8 byte order is code point order
    } else if (low == c) {
      matched = true;
    }
  }
  if (j >= pattern.size()) {
    next = std::string_view::npos;
    return false;
  }
  next = j + 1;
  return matched != negated;
}

// Wildcard matching with one backtracking point per '*' (the classic linear-ish algorithm).
bool match_wildcards(std::string_view pattern, std::string_view name) {
  std::size_t p = 0, n = 0;
  std::size_t star_p = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    const std::size_t cp = sequence_length(static_cast<unsigned char>(name[n]));
    const std::string_view c = name.substr(n, cp);
    if (p < pattern.size()) {
      const char token = pattern[p];
      if (token == '*') {
        star_p = ++p;
        star_n = n;
        continue;
      }
      if (token == '?') {
        ++p;
        n += cp;
        continue;
      }
      if (token == '[') {
        std::size_t next = 0;
        if (match_bracket(pattern, p, c, next)) {
          p = next;
          n += cp;
          continue;
        }
        if (next == std::string_view::npos && c == "[") {  // an unterminated '[' is literal
          ++p;
          ++n;
          continue;
        }
      } else {
        std::size_t literal = p;
        if (token == '\\' && p + 1 < pattern.size()) literal = p + 1;
        const std::size_t length = sequence_length(static_cast<unsigned char>(pattern[literal]));
        if (pattern.substr(literal, length) == c) {
          p = literal + length;
          n += cp;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;  // let the last '*' swallow one more code point
    star_n += sequence_length(static_cast<unsigned char>(name[star_n]));
    n = star_n;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

std::vector<std::string> expand_braces(std::string_view pattern, std::size_t max_patterns) {
  std::vector<std::string> out;
  expand_into(pattern, out, max_patterns);
  return out;
}

bool has_wildcard(std::string_view component) {
  return component.find_first_of("*?[") != std::string_view::npos;
}

bool match_component(std::string_view pattern, std::string_view name) {
  // A hidden name is matched only by a pattern that starts with a literal '.'.
  if (!name.empty() && name[0] == '.' && (pattern.empty() || pattern[0] != '.')) return false;
  return match_wildcards(pattern, name);
}

std::vector<std::string> split_components(std::string_view pattern) {
  std::vector<std::string> components;
  std::size_t start = 0;
  while (start <= pattern.size()) {
    std::size_t end = pattern.find('/', start);
    if (end == std::string_view::npos) end = pattern.size();
    if (end > start) components.emplace_back(pattern.substr(start, end - start));
    start = end + 1;
  }
  return components;
}

namespace {
bool match_from(const std::vector<std::string> &components, std::size_t c,
                const std::vector<std::string_view> &parts, std::size_t p) {
  if (c == components.size()) return p == parts.size();
  if (components[c] == "**") {
    // Zero directories, or swallow one more (never a hidden one) and try again.
    if (match_from(components, c + 1, parts, p)) return true;
    return p < parts.size() && !parts[p].starts_with('.') && match_from(components, c, parts, p + 1);
  }
  return p < parts.size() && match_component(components[c], parts[p]) &&
         match_from(components, c + 1, parts, p + 1);
}
}  // namespace

bool match_path(const std::vector<std::string> &components, std::string_view relative_path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= relative_path.size()) {
    std::size_t end = relative_path.find('/', start);
    if (end == std::string_view::npos) end = relative_path.size();
    if (end > start) parts.push_back(relative_path.substr(start, end - start));
    start = end + 1;
  }
  return match_from(components, 0, parts, 0);
}

PathPattern::PathPattern(std::string_view pattern) {
  for (const auto &alternative : expand_braces(pattern))
    alternatives_.push_back(split_components(alternative));
}

bool PathPattern::matches(std::string_view relative_path) const {
  for (const auto &components : alternatives_)
    if (match_path(components, relative_path)) return true;
  return false;
}

}  // namespace tool_filesystem
