// Matching shell command lines against glob patterns, for tool-bash's allow and deny lists and
// for hooks-approval's command rules (which compiles this file too, so both read a pattern the
// same way).
//
// A pattern is matched against each SIMPLE COMMAND of the line, not only the whole line,
// because "ls *" must not allow "ls; rm -rf ~". The line is split, outside quotes, at
//   ;  &  &&  |  ||  newlines  (  )  `...`  $(...)  <(...)  >(...)
// (a substitution's commands are pieces of their own, and the command around it keeps a
// placeholder: "rm $(cat list)" is "cat list" and "rm $(...)"), and each piece has leading
// shell keywords (if then else elif fi do done while until for !
// { } time) and leading NAME=value assignments removed, and its whitespace runs collapsed to
// one space. So "cd src && FOO=1 make -j2" is the simple commands "cd src" and "make -j2".
//
// Patterns: '*' matches any run of characters (spaces and '/' included), '?' one character,
// '\x' the character x; everything else is literal and the whole text must match. Whitespace
// runs in the pattern are collapsed the same way.
//
// This is a guard rail for a cooperative model, not a sandbox: a wrapper such as
// `bash -c "..."`, `eval` or `xargs` hides the real command from any pattern.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace command_match {

// True when `pattern` matches all of `text`.
bool wildcard_match(std::string_view pattern, std::string_view text);

// The line's simple commands, in order, normalised as described above; empty pieces dropped.
std::vector<std::string> simple_commands(std::string_view command_line);

// Collapses whitespace runs to one space and trims the ends.
std::string normalize_whitespace(std::string_view text);

struct Match {
  std::string pattern;  // the pattern that matched
  std::string command;  // the simple command (or the whole line) it matched
};

// For deny lists and rules that stop or question a command: the first pattern matching the
// whole line or any of its simple commands.
std::optional<Match> match_any_part(const std::vector<std::string> &patterns,
                                    std::string_view command_line);

// For allow lists and rules that let a command through: true when EVERY simple command matches
// one of the patterns (a line with no simple command is judged as a whole). On false,
// `unmatched` (when given) receives the first simple command no pattern matched.
bool match_every_part(const std::vector<std::string> &patterns, std::string_view command_line,
                      std::string *unmatched = nullptr);

}  // namespace command_match
