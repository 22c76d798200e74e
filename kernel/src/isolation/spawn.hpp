// Starting and ending amplifier-module-host processes.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

namespace amplifier::isolation {

struct SpawnedProcess {
  pid_t pid = -1;
  int socket_fd = -1;  // the host's end of the socketpair (the child has fd 3)
  int output_fd = -1;  // read end of the child's stderr
};

// Starts `program LIBRARY MAX_MESSAGE_MB` through the process library (amplifier::process) with
// the socketpair on fd 3, its stderr on a pipe (the host logs each line under the module's
// name), its stdout the host's own (a display hook writes to the terminal as it would in
// process), stdin from /dev/null, in a process group of its own (a Ctrl-C at the terminal is
// the host's to handle), dying with the host, its address space limited when
// `memory_limit_mb` is not 0; both ends accept frames up to `max_message_mb` MiB (set by the
// operator's plan only: agents and serve clients are refused isolation options). Throws
// (process::SpawnError, std::system_error) naming the reason.
SpawnedProcess spawn_module_host(const std::filesystem::path &program,
                                 const std::filesystem::path &library, std::size_t memory_limit_mb,
                                 std::size_t max_message_mb);

// How a child ended, once: reaps it (SIGKILL after `grace` if it has not ended by then).
class ProcessEnd {
 public:
  explicit ProcessEnd(pid_t pid) : pid_(pid) {}
  // The wait status (as waitpid's), reaping the child if nobody has yet.
  int reap(std::chrono::milliseconds grace);
  void kill();  // SIGKILL, unless already reaped
  // "killed by signal 11 (SIGSEGV)", "exited with status 3".
  static std::string describe(int wait_status);

 private:
  pid_t pid_;
  std::mutex mutex_;
  std::optional<int> status_;
};

}  // namespace amplifier::isolation
