#include "amplifier/process/run.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace amplifier::process {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// How long the pipes may stay open after the child exited (a background process it left holds
// them): what is already written is read, then the group is ended.
constexpr auto kDrainAfterExit = 100ms;
// Without a pidfd, how often the child's end is looked for.
constexpr auto kExitPoll = 20ms;
// How often RunOptions::cancelled is asked.
constexpr auto kCancelPoll = 100ms;

// One output pipe: read as it comes, kept up to the limit.
struct Sink {
  int fd;
  std::string &text;
  bool &cut;
  std::size_t limit;

  // False once the pipe is at its end (or broken).
  bool read_some() {
    char buffer[16 * 1024];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        const std::size_t room = limit > text.size() ? limit - text.size() : 0;
        text.append(buffer, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
        if (static_cast<std::size_t>(n) > room) cut = true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
  }
};

int poll_timeout_ms(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return static_cast<int>(std::clamp<long long>(left.count() + 1, 0, 60'000));
}

}  // namespace

int RunOutcome::exit_code() const noexcept {
  return !timed_out && !cancelled && WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

ssize_t write_without_sigpipe(int fd, const char *data, std::size_t size) {
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  const ssize_t written = ::write(fd, data, size);
  const int error = errno;
  if (written < 0 && error == EPIPE) {
    const timespec no_wait{};
    ::sigtimedwait(&pipe_signal, nullptr, &no_wait);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = error;
  return written;
}

RunOutcome run_to_end(Spec spec, const RunOptions &options) {
  spec.stdin_stream = Stream::pipe();
  spec.stdout_stream = Stream::pipe();
  spec.stderr_stream = Stream::pipe();
  const auto started = Clock::now();
  const auto deadline = started + options.timeout;
  Child child = Child::spawn(spec);  // throws SpawnError
  // Readable once the child exits (-1 on kernels without pidfds: polled then).
  struct OwnedFd {
    int fd;
    ~OwnedFd() {
      if (fd >= 0) ::close(fd);
    }
  } exit_pidfd{child.open_pidfd()};
  const int exit_fd = exit_pidfd.fd;

  RunOutcome outcome;
  Sink out{child.stdout_fd(), outcome.out, outcome.out_cut, options.max_output_bytes};
  Sink err{child.stderr_fd(), outcome.err, outcome.err_cut, options.max_output_bytes};
  bool out_open = true, err_open = true, exited = false;
  std::size_t written = 0;
  if (options.input.empty()) child.close_stdin();
  std::optional<Clock::time_point> drain_until;

  for (;;) {
    const auto now = Clock::now();
    if (!exited && exit_fd < 0 && child.exited()) exited = true;
    // Once the child exited, it finished in time: what is left is draining what its
    // background processes hold open, bounded by kDrainAfterExit, never a timeout.
    if (exited && !out_open && !err_open) break;
    if (exited && !drain_until) drain_until = now + kDrainAfterExit;
    if (drain_until && now >= *drain_until) break;
    if (!exited && now >= deadline) {
      outcome.timed_out = true;
      break;
    }
    if (options.cancelled && options.cancelled()) {
      outcome.cancelled = true;
      break;
    }

    pollfd fds[4];
    nfds_t count = 0;
    const int in_fd = child.stdin_fd();
    if (in_fd >= 0) fds[count++] = {in_fd, POLLOUT, 0};
    if (out_open) fds[count++] = {out.fd, POLLIN, 0};
    if (err_open) fds[count++] = {err.fd, POLLIN, 0};
    if (exit_fd >= 0 && !exited) fds[count++] = {exit_fd, POLLIN, 0};
    auto until = drain_until ? *drain_until : deadline;
    if (exit_fd < 0 && !exited) until = std::min(until, now + kExitPoll);
    if (options.cancelled) until = std::min(until, now + kCancelPoll);
    const int ready = ::poll(fds, count, poll_timeout_ms(until));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; ready > 0 && i < count; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in_fd) {
        const ssize_t n = write_without_sigpipe(in_fd, options.input.data() + written,
                                                options.input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        // Done, or the child stopped reading (EPIPE): either way no more input goes to it.
        if (written == options.input.size() || (n < 0 && errno != EAGAIN && errno != EINTR))
          child.close_stdin();
      } else if (fds[i].fd == out.fd) {
        out_open = out.read_some();
      } else if (fds[i].fd == err.fd) {
        err_open = err.read_some();
      } else if (fds[i].fd == exit_fd) {
        exited = true;
      }
    }
  }
  // Ends what the child left running in its group too, and reaps it. A child that exited by
  // itself keeps its own status; a timed-out one gets SIGTERM now and SIGKILL after
  // kill_grace; a cancelled one SIGKILL at once.
  if (outcome.timed_out) child.signal_group(SIGTERM);
  outcome.wait_status = child.stop(outcome.timed_out ? options.kill_grace : 0ms);
  outcome.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  return outcome;
}

}  // namespace amplifier::process
