#include "init_prompt.hpp"

#include <cctype>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <termios.h>
#include <unistd.h>

namespace amplifier::host::init {

namespace {

// The terminal settings to put back if a signal ends the process while echo is off.
termios g_saved_terminal;
volatile std::sig_atomic_t g_echo_off = 0;

extern "C" void restore_terminal_and_reraise(int signal_number) {
  if (g_echo_off) ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_terminal);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Echo off for its lifetime (the newline still echoes, so the next line starts below).
class EchoOff {
 public:
  EchoOff() {
    if (::tcgetattr(STDIN_FILENO, &g_saved_terminal) != 0) return;  // not a terminal
    previous_int_ = std::signal(SIGINT, restore_terminal_and_reraise);
    previous_term_ = std::signal(SIGTERM, restore_terminal_and_reraise);
    termios quiet = g_saved_terminal;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;
    g_echo_off = 1;
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  ~EchoOff() {
    if (!g_echo_off) return;
    ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_terminal);
    g_echo_off = 0;
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }
  EchoOff(const EchoOff &) = delete;
  EchoOff &operator=(const EchoOff &) = delete;

 private:
  void (*previous_int_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
};

std::string read_line() {
  std::string line;
  if (!std::getline(std::cin, line)) throw InitCancelled();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

void Prompter::say(const std::string &text) const {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

std::string Prompter::ask(const std::string &question) const {
  say(question);
  return read_line();
}

std::string Prompter::ask_hidden(const std::string &question) const {
  say(question);
  EchoOff quiet;
  return read_line();
}

char Prompter::pick(const std::string &question, const std::string &letters, char fallback) const {
  for (;;) {
    const std::string typed = trimmed(ask(question));
    if (typed.empty()) return fallback;
    const char letter = static_cast<char>(std::tolower(static_cast<unsigned char>(typed[0])));
    if (typed.size() == 1 && letters.find(letter) != std::string::npos) return letter;
    say("  type one of: " + letters + "\n");
  }
}

bool Prompter::yes_no(const std::string &question, bool fallback) const {
  return pick(question + (fallback ? " [Y/n]: " : " [y/N]: "), "yn", fallback ? 'y' : 'n') == 'y';
}

std::string trimmed(const std::string &text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace amplifier::host::init
