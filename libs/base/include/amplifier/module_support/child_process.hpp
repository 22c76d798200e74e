// A long-lived child process a module talks to through pipes (an MCP server over stdio, a
// language server...): started in a process group of its own, its stdin, stdout and stderr
// piped, killed with its whole group when stopped, and never outliving the host.
//
// Why not posix_spawn: the child must ask for PR_SET_PDEATHSIG (SIGKILL when the host dies),
// which only code running in the child between fork and exec can do. That death signal is tied
// to the THREAD that started the child: start it from a thread that lives as long as the child
// is wanted (a connection's own thread), never from a pool thread that may exit.
// Grandchildren are reached by stop() through the process group; if the host is killed
// outright only the child itself gets the death signal, and the rest see their stdin close.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace amplifier::module_support {

// The command could not be started: not found, not executable, no such directory. The message
// names the command and the reason.
class SpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ChildSpec {
  // argv[0] is looked up on PATH (the child's, so an `env` PATH applies) when it has no '/'.
  std::vector<std::string> argv;
  // Set in (or added to) the host's environment for the child.
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path working_dir;  // empty: the host's
};

class ChildProcess {
 public:
  // Starts the child. Throws SpawnError (exec failures included: they are reported back from
  // the child before start returns).
  explicit ChildProcess(const ChildSpec &spec);
  // stop() with a short grace period.
  ~ChildProcess();
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;

  pid_t pid() const noexcept { return pid_; }
  // Non-blocking pipe ends (the caller polls them); -1 once closed.
  int stdin_fd() const noexcept { return stdin_; }
  int stdout_fd() const noexcept { return stdout_; }
  int stderr_fd() const noexcept { return stderr_; }
  void close_stdin() noexcept;

  // Ends the child and everything in its process group: closes stdin (a well-behaved server
  // exits on that), then after half of `grace` SIGTERM to the group, after the other half
  // SIGKILL to the group (sent in any case, for what the child left running), then reaps the
  // child. Returns its wait status. Idempotent.
  int stop(std::chrono::milliseconds grace);
  // True once the child has exited (it stays unreaped until stop(), so its pid and group id
  // cannot be reused by an unrelated process meanwhile).
  bool exited() const noexcept;
  // How it ended ("exited with status 1", "killed by signal 9 (Killed)"), read without reaping
  // it; nullopt while it runs.
  std::optional<std::string> exit_reason() const;

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int stderr_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

// The host's environment with `overrides` set (added or replaced), as "NAME=value" strings.
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>> &overrides);

// The argv / envp form of `strings`: a pointer to each one's characters, then a null pointer.
// Valid while `strings` is not changed.
std::vector<char *> c_string_pointers(std::vector<std::string> &strings);

// "exited with status 1", "killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

// The program `name` would run as: itself when it has a '/', else the first executable match
// on `path_list` (a PATH value). Empty when there is none.
std::filesystem::path find_program(const std::string &name, const std::string &path_list);

}  // namespace amplifier::module_support
