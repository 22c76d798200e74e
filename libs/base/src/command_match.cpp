#include "amplifier/module_support/command_match.hpp"

#include <array>
#include <cctype>

namespace command_match {

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Words a simple command may start with that are syntax, not the command.
constexpr std::array<std::string_view, 14> kLeadingKeywords = {
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "!", "{", "}",
    "time"};

bool is_keyword(std::string_view word) {
  for (auto keyword : kLeadingKeywords)
    if (word == keyword) return true;
  return false;
}

// NAME=value, as in "FOO=1 make".
bool is_assignment(std::string_view word) {
  const std::size_t equals = word.find('=');
  if (equals == 0 || equals == std::string_view::npos) return false;
  for (std::size_t i = 0; i < equals; ++i) {
    const unsigned char c = static_cast<unsigned char>(word[i]);
    if (!(std::isalnum(c) || c == '_') || (i == 0 && std::isdigit(c))) return false;
  }
  return true;
}

// Drops leading keywords and assignments from a normalised simple command.
std::string strip_prefix_words(const std::string &command) {
  std::size_t start = 0;
  while (start < command.size()) {
    std::size_t end = command.find(' ', start);
    if (end == std::string::npos) end = command.size();
    const std::string_view word(command.data() + start, end - start);
    if (!is_keyword(word) && !is_assignment(word)) break;
    start = end + 1;
  }
  return start >= command.size() ? std::string() : command.substr(start);
}

// Splits a command line into pieces at the separators, tracking quotes and nested
// substitutions (a "$(...)" inside double quotes is a command of its own).
class Splitter {
 public:
  explicit Splitter(std::string_view line) : line_(line) {}

  std::vector<std::string> split() {
    for (i_ = 0; i_ < line_.size(); ++i_) {
      switch (quote_) {
        case Quote::single: in_single_quotes(); break;
        case Quote::double_: in_double_quotes(); break;
        case Quote::none: unquoted(); break;
      }
    }
    while (!frames_.empty()) close_substitution();  // unbalanced: close what is open
    cut();
    return std::move(pieces_);
  }

 private:
  enum class Quote { none, single, double_ };
  struct Frame {
    bool backtick;
    Quote resume;       // the quoting in force where the substitution started
    std::string outer;  // the enclosing command so far, with a placeholder for this one
  };

  char at(std::size_t k) const { return k < line_.size() ? line_[k] : '\0'; }

  void cut() {
    std::string piece = strip_prefix_words(normalize_whitespace(current_));
    if (!piece.empty()) pieces_.push_back(std::move(piece));
    current_.clear();
  }

  // The enclosing command keeps a placeholder where the substitution was ("rm $(...)"), so a
  // pattern like "rm *" still sees it is an rm; the substitution's own commands are pieces of
  // their own.
  void open_substitution(bool backtick, std::string_view placeholder) {
    frames_.push_back({backtick, quote_, current_ + std::string(placeholder)});
    current_.clear();
    quote_ = Quote::none;
  }

  void close_substitution() {
    cut();
    quote_ = frames_.back().resume;
    current_ = std::move(frames_.back().outer);
    frames_.pop_back();
  }

  bool is_redirection_ampersand() const {
    const char before = current_.empty() ? '\0' : current_.back();
    return before == '>' || before == '<' || at(i_ + 1) == '>';
  }

  void in_single_quotes() {
    if (line_[i_] == '\'') quote_ = Quote::none;
    current_ += line_[i_];
  }

  void in_double_quotes() {
    const char c = line_[i_];
    if (c == '\\') {
      current_ += c;
      current_ += at(++i_);
    } else if (c == '"') {
      quote_ = Quote::none;
      current_ += c;
    } else if (c == '$' && at(i_ + 1) == '(') {
      ++i_;
      open_substitution(false, "$(...)");
    } else if (c == '`') {
      open_substitution(true, "`...`");
    } else {
      current_ += c;
    }
  }

  void unquoted() {
    const char c = line_[i_];
    if (c == '\\') {
      current_ += c;
      current_ += at(++i_);
    } else if (c == '\'') {
      quote_ = Quote::single;
      current_ += c;
    } else if (c == '"') {
      quote_ = Quote::double_;
      current_ += c;
    } else if ((c == '$' || c == '<' || c == '>') && at(i_ + 1) == '(') {
      ++i_;
      open_substitution(false, std::string(1, c) + "(...)");
    } else if (c == '(') {
      open_substitution(false, "");  // a subshell: its commands are the pieces
    } else if (c == ')') {
      if (!frames_.empty() && !frames_.back().backtick) close_substitution();
      else cut();
    } else if (c == '`') {
      if (!frames_.empty() && frames_.back().backtick) close_substitution();
      else open_substitution(true, "`...`");
    } else if (c == '&' && is_redirection_ampersand()) {
      current_ += c;  // "2>&1", "&>file", ">&2": a redirection, not a separator
    } else if (c == ';' || c == '&' || c == '|' || c == '\n') {
      cut();
    } else {
      current_ += c;
    }
  }

  std::string_view line_;
  std::size_t i_ = 0;
  Quote quote_ = Quote::none;
  std::vector<Frame> frames_;
  std::string current_;
  std::vector<std::string> pieces_;
};

}  // namespace

bool wildcard_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = ++p;
      star_t = t;
      continue;
    }
    if (p < pattern.size()) {
      std::size_t literal = p;
      if (pattern[p] == '\\' && p + 1 < pattern.size()) literal = p + 1;
      if (pattern[p] == '?' || pattern[literal] == text[t]) {
        p = literal + 1;
        ++t;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    p = star;  // the last '*' takes one more character
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string normalize_whitespace(std::string_view text) {
  std::string out;
  bool pending_space = false;
  for (char c : text) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> simple_commands(std::string_view command_line) {
  return Splitter(command_line).split();
}

namespace {
const std::string *first_matching(const std::vector<std::string> &patterns, const std::string &text) {
  for (const auto &pattern : patterns)
    if (wildcard_match(normalize_whitespace(pattern), text)) return &pattern;
  return nullptr;
}
}  // namespace

std::optional<Match> match_any_part(const std::vector<std::string> &patterns,
                                    std::string_view command_line) {
  const std::string whole = normalize_whitespace(command_line);
  if (const std::string *pattern = first_matching(patterns, whole)) return Match{*pattern, whole};
  for (const auto &command : simple_commands(command_line)) {
    if (const std::string *pattern = first_matching(patterns, command)) return Match{*pattern, command};
  }
  return std::nullopt;
}

bool match_every_part(const std::vector<std::string> &patterns, std::string_view command_line,
                      std::string *unmatched) {
  std::vector<std::string> commands = simple_commands(command_line);
  if (commands.empty()) commands.push_back(normalize_whitespace(command_line));
  for (const auto &command : commands) {
    if (!first_matching(patterns, command)) {
      if (unmatched) *unmatched = command;
      return false;
    }
  }
  return true;
}

}  // namespace command_match
