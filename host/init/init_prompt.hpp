// Questions on the terminal for `amplifier init`: lines, hidden lines (secrets), letters.
#pragma once
#include <stdexcept>
#include <string>

namespace amplifier::host::init {

// Standard input ended (Ctrl-D) while a question was open.
class InitCancelled : public std::runtime_error {
 public:
  InitCancelled() : std::runtime_error("input ended: nothing written") {}
};

class Prompter {
 public:
  // Writes `text` to standard output as it is.
  void say(const std::string &text) const;
  // Asks `question` and returns the line typed (without its newline). Throws InitCancelled.
  std::string ask(const std::string &question) const;
  // The same with echo off (termios), for secrets: what is typed never reaches the screen.
  // Ctrl-C while it is open restores the terminal before the process ends.
  std::string ask_hidden(const std::string &question) const;
  // One of `letters` (case-insensitive); Enter means `fallback`.
  char pick(const std::string &question, const std::string &letters, char fallback) const;
  // y or n; Enter means `fallback`.
  bool yes_no(const std::string &question, bool fallback) const;
};

// `text` without the spaces and tabs around it (an answer typed at a prompt).
std::string trimmed(const std::string &text);

}  // namespace amplifier::host::init
