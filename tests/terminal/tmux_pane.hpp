// A program running in its own tmux server (a real terminal), for tests that type into it
// and read its screen. Each pane gets a private server socket (tmux -L <unique>), killed on
// destruction, so tests never touch the user's tmux or each other.
#pragma once
#include <chrono>
#include <string>
#include <vector>

namespace amp_test {

class TmuxPane {
 public:
  // Starts `command` (run by /bin/sh) in a 160x50 pane, in `working_dir`.
  TmuxPane(const std::string &command, const std::string &working_dir);
  ~TmuxPane();
  TmuxPane(const TmuxPane &) = delete;
  TmuxPane &operator=(const TmuxPane &) = delete;

  // tmux send-keys: each item is a key name ("Enter", "C-c") or literal text with -l.
  void type(const std::string &text) const;  // literal text
  void key(const std::string &key_name) const;

  // The whole screen plus scrollback, as text.
  std::string screen() const;
  // Polls the screen until `text` appears `times` times (true) or `timeout` passes (false).
  bool wait_for(const std::string &text, std::chrono::milliseconds timeout, int times = 1) const;
  // How often `text` is on the screen.
  int count(const std::string &text) const;

 private:
  std::string run_tmux(const std::vector<std::string> &args) const;
  std::string socket_;
};

}  // namespace amp_test
