#include "tmux_pane.hpp"

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace amp_test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(50);

// Runs argv without a shell and returns its standard output.
std::string capture(const std::vector<std::string> &argv) {
  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return text;
}

std::string unique_socket() {
  static std::atomic<int> counter{0};
  return "amp-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

int occurrences(const std::string &haystack, const std::string &needle) {
  int n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TmuxPane::TmuxPane(const std::string &command, const std::string &working_dir)
    : socket_(unique_socket()) {
  run_tmux({"new-session", "-d", "-x", "160", "-y", "50", "-c", working_dir, command});
  // Keep the pane (and its last screen) when the program exits, so a test can still read it.
  run_tmux({"set-option", "-g", "remain-on-exit", "on"});
  run_tmux({"set-option", "-g", "history-limit", "10000"});
}

TmuxPane::~TmuxPane() { run_tmux({"kill-server"}); }

std::string TmuxPane::run_tmux(const std::vector<std::string> &args) const {
  std::vector<std::string> argv{AMP_TMUX, "-L", socket_, "-f", "/dev/null"};
  argv.insert(argv.end(), args.begin(), args.end());
  return capture(argv);
}

void TmuxPane::type(const std::string &text) const { run_tmux({"send-keys", "-l", text}); }
void TmuxPane::key(const std::string &key_name) const { run_tmux({"send-keys", key_name}); }

std::string TmuxPane::screen() const { return run_tmux({"capture-pane", "-p", "-J", "-S", "-"}); }

int TmuxPane::count(const std::string &text) const { return occurrences(screen(), text); }

bool TmuxPane::wait_for(const std::string &text, std::chrono::milliseconds timeout, int times) const {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (count(text) >= times) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace amp_test
