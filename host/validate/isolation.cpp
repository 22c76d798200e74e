#include "isolation.hpp"

#include "amplifier/process/child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace amplifier::host::validate {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kStderrTailBytes = 4096;

enum class ReadState { Data, Again, End };

// Appends what is readable now on `fd`.
ReadState drain(int fd, std::string &into) {
  char buffer[8192];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    into.append(buffer, static_cast<std::size_t>(n));
    return ReadState::Data;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return ReadState::Again;
  return ReadState::End;
}

void keep_tail(std::string &text) {
  if (text.size() > 2 * kStderrTailBytes) text.erase(0, text.size() - kStderrTailBytes);
}

void record_exit(int status, IsolatedRun &run) {
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
}

}  // namespace

// Trust: the program is the running `amplifier` itself and the module the one the operator
// asked `validate` to check.
IsolatedRun run_isolated(const IsolationOptions &options) {
  int channel_fds[2];
  if (::pipe2(channel_fds, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  const int channel_read = channel_fds[0];
  process::Spec spec;
  spec.argv = options.argv;
  spec.environment = options.environment;
  spec.working_dir = options.working_dir;
  spec.stderr_stream = process::Stream::pipe();
  spec.extra_descriptors = {{kChannelFd, channel_fds[1]}};
  process::Child child;
  try {
    child = process::Child::spawn(spec);
  } catch (...) {
    ::close(channel_fds[0]);
    ::close(channel_fds[1]);
    throw;
  }
  ::close(channel_fds[1]);
  IsolatedRun run;
  const auto deadline = Clock::now() + options.budget;
  bool exited = false;
  int status = 0;
  int open_fds[2] = {channel_read, child.stderr_fd()};  // -1 once at end of file
  std::string *sinks[2] = {&run.channel_text, &run.stderr_tail};
  // Read both pipes until the child has exited; its stray descendants may keep the pipes
  // open, so the end of the child, not end of file, ends the wait.
  while (!exited) {
    pollfd fds[2] = {{open_fds[0], POLLIN, 0}, {open_fds[1], POLLIN, 0}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 && !run.timed_out) {
      run.timed_out = true;
      child.signal_group(SIGKILL);
    }
    poll(fds, 2, static_cast<int>(std::clamp<long>(left.count(), 0, 50)));
    for (int i = 0; i < 2; ++i)
      if (open_fds[i] >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
          drain(open_fds[i], *sinks[i]) == ReadState::End)
        open_fds[i] = -1;
    keep_tail(run.stderr_tail);
    exited = child.exited() || run.timed_out;
  }
  child.signal_group(SIGKILL);  // whatever the check left running
  status = child.wait();
  for (int i = 0; i < 2; ++i) {
    if (open_fds[i] < 0) continue;
    fcntl(open_fds[i], F_SETFL, O_NONBLOCK);
    while (drain(open_fds[i], *sinks[i]) == ReadState::Data) {
    }
  }
  ::close(channel_read);
  keep_tail(run.stderr_tail);
  record_exit(status, run);
  return run;
}

std::string describe_signal(int signal) {
  const char *abbrev = sigabbrev_np(signal);
  const char *description = sigdescr_np(signal);
  return std::string("SIG") + (abbrev ? abbrev : std::to_string(signal)) + " (" +
         (description ? description : "unknown signal") + ")";
}

}  // namespace amplifier::host::validate
