// Running one command to its end: `/bin/bash -c <command>` (or bwrap running it, see
// sandbox.hpp), started by the process library (amplifier::process) in a process group of its own, stdout and stderr captured together through one
// pipe (interleaved as written, like a terminal shows them), stdin from /dev/null, signal
// dispositions and mask reset to defaults.
//
// How a run ends:
//   - the shell exits: any process still in its group (a backgrounded `server &`) is ended
//     too, SIGTERM then, after the grace period, SIGKILL, so nothing outlives the call;
//     a process that left the group (setsid, nohup setsid) is on its own;
//   - the timeout passes: the whole group gets SIGTERM, then SIGKILL after the grace period;
//   - an immediate cancellation (Interrupt::trigger, or the host's cancel level polled every
//     100 ms): the whole group gets SIGKILL at once.
// The shell itself is always reaped before run_command returns, and it is reaped only after
// its group has been ended: while the unreaped leader holds the group's id, that id cannot be
// reused, so no signal sent to the group can reach an unrelated process.
#pragma once
#include "output_capture.hpp"

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tool_bash {

// The command could not be started at all (no /bin/bash or bwrap, a working directory that
// vanished).
class SpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Lets another thread end a running command at once. The owner's wait loop watches fd().
class Interrupt {
 public:
  Interrupt();
  ~Interrupt();
  Interrupt(const Interrupt &) = delete;
  Interrupt &operator=(const Interrupt &) = delete;

  void trigger() noexcept;
  bool triggered() const noexcept { return triggered_.load(); }
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
  std::atomic<bool> triggered_{false};
};

struct RunLimits {
  std::chrono::milliseconds timeout{120'000};
  std::chrono::milliseconds kill_grace{2'000};  // between SIGTERM and SIGKILL
  std::size_t max_output_bytes = 30'000;
};

enum class RunEnd {
  exited,     // the shell exited by itself (exit_code) or was killed by a signal from elsewhere
  timed_out,  // the timeout passed
  cancelled,  // interrupted
};

struct RunResult {
  RunEnd end = RunEnd::exited;
  int exit_code = -1;  // when the shell exited normally, else -1
  int signal = 0;      // when a signal ended the shell, else 0
  OutputCapture output{0};
  pid_t process_group = 0;
  std::chrono::milliseconds elapsed{0};
};

// What to start. argv[0] is looked up on PATH when it has no '/'.
struct Command {
  std::vector<std::string> argv;
  std::filesystem::path working_dir;
  // A session of its own (setsid) rather than only a process group: the command then has no
  // controlling terminal, so it cannot push input into the user's terminal (TIOCSTI). Its
  // process group is still its pid, so everything below works the same.
  bool new_session = false;
  // The command's whole environment ("NAME=value" each), when set (the sandbox's allow-list).
  // Unset: the host's environment without what looks like a credential (looks_secret).
  std::optional<std::vector<std::string>> environment;
};

// Whether an environment variable's name looks like a credential, in any letter case:
// ANTHROPIC_API_KEY, github_token, AWS_SECRET_ACCESS_KEY, PGPASSWORD, AMPLIFIER_PG_DSN,
// DATABASE_URL, ... Such variables belong to the host, not to commands a model asked for.
bool looks_secret(std::string_view name);

// `/bin/bash -c <command_line>` in `working_dir`.
Command shell_command(const std::string &command_line, const std::filesystem::path &working_dir);

// Runs `command`. `host_cancelled` is polled while waiting (true = cancel immediately).
// Throws SpawnError when the command cannot be started.
RunResult run_command(const Command &command, const RunLimits &limits, Interrupt &interrupt,
                      const std::function<bool()> &host_cancelled);

}  // namespace tool_bash
