// The bash command matcher (libs/base command_match, used by tool-bash's allow/deny lists
// and hooks-approval's rules). Input: patterns, one a line, a NUL byte, then the command line
// (no NUL: the whole input is the command line, with no patterns).
// Invariants: wildcard_match agrees with a straightforward dynamic-programming matcher; a
// pattern escaping every character matches exactly its text; "*" matches everything;
// simple_commands yields non-empty, normalised pieces; normalize_whitespace is idempotent; a
// line every part of which is allowed has a part any-matching the same patterns.
#include "fuzz_support.hpp"

#include "amplifier/module_support/command_match.hpp"

#include <algorithm>

namespace cm = command_match;

namespace {

// The reference: '*' any run, '?' one character, '\x' the character x (a trailing '\' is
// itself), everything else literal; the whole text must match.
bool reference_match(std::string_view pattern, std::string_view text) {
  struct Token {
    enum { star, any, literal } kind;
    char c;
  };
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '*') tokens.push_back({Token::star, 0});
    else if (pattern[i] == '?') tokens.push_back({Token::any, 0});
    else if (pattern[i] == '\\' && i + 1 < pattern.size()) tokens.push_back({Token::literal, pattern[++i]});
    else tokens.push_back({Token::literal, pattern[i]});
  }
  // row[j]: tokens[0..i) match text[0..j)
  std::vector<char> row(text.size() + 1, 0), next(text.size() + 1, 0);
  row[0] = 1;
  for (const Token &token : tokens) {
    std::fill(next.begin(), next.end(), 0);
    for (std::size_t j = 0; j <= text.size(); ++j) {
      if (token.kind == Token::star) {
        next[j] = row[j] || (j > 0 && next[j - 1]);
      } else if (j > 0) {
        next[j] = row[j - 1] && (token.kind == Token::any || text[j - 1] == token.c);
      }
    }
    std::swap(row, next);
  }
  return row[text.size()] != 0;
}

std::string escape_all(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += '\\';
    out += c;
  }
  return out;
}

void check_wildcard(std::string_view pattern, std::string_view text) {
  if (pattern.size() * text.size() > 1'000'000) return;
  FUZZ_CHECK(cm::wildcard_match(pattern, text) == reference_match(pattern, text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view input = amp_fuzz::as_text(data, size);
  std::vector<std::string> patterns;
  std::string_view line = input;
  if (const std::size_t nul = input.find('\0'); nul != std::string_view::npos) {
    for (std::string_view p : amp_fuzz::split(input.substr(0, nul), '\n')) patterns.emplace_back(p);
    line = input.substr(nul + 1);
  }

  const std::string normal = cm::normalize_whitespace(line);
  FUZZ_CHECK(cm::normalize_whitespace(normal) == normal);
  FUZZ_CHECK(cm::wildcard_match("*", line));
  if (line.size() <= 4096) FUZZ_CHECK(cm::wildcard_match(escape_all(line), line));

  const std::vector<std::string> commands = cm::simple_commands(line);
  for (const std::string &command : commands) {
    FUZZ_CHECK(!command.empty());
    FUZZ_CHECK(cm::normalize_whitespace(command) == command);
  }
  FUZZ_CHECK(cm::match_every_part({"*"}, line));
  FUZZ_CHECK(cm::match_any_part({"*"}, line).has_value());

  for (const std::string &pattern : patterns) {
    check_wildcard(pattern, line);
    check_wildcard(pattern, normal);
    for (const std::string &command : commands) check_wildcard(cm::normalize_whitespace(pattern), command);
  }
  std::string unmatched;
  const bool every = cm::match_every_part(patterns, line, &unmatched);
  const auto any = cm::match_any_part(patterns, line);
  if (every) FUZZ_CHECK(any.has_value());
  if (any) FUZZ_CHECK(std::find(patterns.begin(), patterns.end(), any->pattern) != patterns.end());
  return 0;
}
