#include "isolation/spawn.hpp"

#include "amplifier/process/child.hpp"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>
#include <thread>

namespace amplifier::isolation {
namespace {

constexpr int kChildSocketFd = 3;

std::system_error errno_error(const char *what) {
  return std::system_error(errno, std::generic_category(), what);
}

}  // namespace

// Trust: the program is this build's amplifier-module-host and the library a module the
// operator's plan mounted; the memory and message limits come from the plan only.
SpawnedProcess spawn_module_host(const std::filesystem::path &program,
                                 const std::filesystem::path &library,
                                 std::size_t memory_limit_mb, std::size_t max_message_mb) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw errno_error("socketpair");
  process::Spec spec;
  spec.argv = {program.string(), library.string(), std::to_string(max_message_mb)};
  spec.stdout_stream = process::Stream::inherit();
  spec.stderr_stream = process::Stream::pipe();
  spec.extra_descriptors = {{kChildSocketFd, sockets[1]}};
  spec.die_with_host = true;
  spec.address_space_limit = memory_limit_mb * 1024 * 1024;
  try {
    process::Child child = process::Child::spawn(spec);
    ::close(sockets[1]);
    const int output = child.take_stderr();
    return SpawnedProcess{child.release(), sockets[0], output};  // ProcessEnd reaps it
  } catch (...) {  // SpawnError names the program and the reason
    ::close(sockets[0]);
    ::close(sockets[1]);
    throw;
  }
}

int ProcessEnd::reap(std::chrono::milliseconds grace) {
  std::lock_guard lock(mutex_);
  if (status_) return *status_;
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) {  // reaped elsewhere: report it as gone
      status = 0;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  status_ = status;
  return status;
}

void ProcessEnd::kill() {
  std::lock_guard lock(mutex_);
  if (!status_) ::kill(pid_, SIGKILL);
}

std::string ProcessEnd::describe(int wait_status) {
  return process::describe_wait_status(wait_status);
}

}  // namespace amplifier::isolation
