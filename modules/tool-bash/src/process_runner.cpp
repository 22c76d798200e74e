#include "process_runner.hpp"

#include "amplifier/process/child.hpp"
#include "amplifier/process/environment.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

extern char **environ;

namespace tool_bash {

bool looks_secret(std::string_view name) {
  std::string upper(name);
  for (char &c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // DSN and DATABASE_URL: connection strings carry their password (postgresql://u:pw@host).
  for (std::string_view word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
                                "CREDENTIAL", "COOKIE", "DSN", "DATABASE_URL"})
    if (upper.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace tool_bash

namespace {

// The host's environment minus credentials.
std::vector<std::string> environment_without_secrets() {
  std::vector<std::string> kept;
  for (char **entry = environ; *entry; ++entry) {
    std::string_view text(*entry);
    if (!tool_bash::looks_secret(text.substr(0, text.find('=')))) kept.emplace_back(text);
  }
  return kept;
}

}  // namespace

namespace tool_bash {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often the host's cancel level is polled while nothing else wakes the wait.
constexpr milliseconds kHostPollInterval{100};
// How often a dying group is looked at: no kernel notice exists for processes that are not
// our children, so this is a short poll, bounded by the grace period.
constexpr milliseconds kGroupPollInterval{10};
constexpr std::size_t kReadChunk = 64 * 1024;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

int poll_timeout(milliseconds wait) {
  return static_cast<int>(std::max<milliseconds::rep>(0, wait.count()));
}

class CommandRun {
 public:
  CommandRun(const Command &command, const RunLimits &limits, Interrupt &interrupt,
             const std::function<bool()> &host_cancelled)
      : command_(command),
        limits_(limits),
        interrupt_(interrupt),
        host_cancelled_(host_cancelled),
        output_(limits.max_output_bytes) {}

  RunResult run() {
    const auto started = Clock::now();
    spawn();
    const RunEnd end = wait_for_end(started + limits_.timeout);
    end_group(end == RunEnd::cancelled);
    drain_output(Clock::now() + limits_.kill_grace);
    const int status = reap();

    RunResult result;
    result.end = end;
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    result.output = std::move(output_);
    result.process_group = pid_;
    result.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - started);
    return result;
  }

 private:
  // Trust: the command line is the model's (a tool call), already passed through the plan's
  // allow/deny lists, the confined folder and, when on, the sandbox; the program that runs it is
  // the operator's (/bin/bash, or the plan's bwrap_path), looked up on the host's PATH (the
  // operator's environment) in absolute folders only, so a cloned repository's ./bin or a
  // workspace file named like the program is never run instead.
  void spawn() {
    namespace process = amplifier::process;
    process::Spec spec;
    // The program is looked up on the host's PATH (the operator's), not on the command's
    // environment, which may be the sandbox's allow-list.
    spec.argv = command_.argv;
    const char *host_path = ::getenv("PATH");
    if (const auto program = process::find_program(
            spec.argv[0], host_path ? host_path : process::path_of({}));
        !program.empty())
      spec.argv[0] = program.string();
    spec.environment = command_.environment ? *command_.environment : environment_without_secrets();
    spec.working_dir = command_.working_dir;
    spec.stdout_stream = process::Stream::pipe();
    spec.stderr_stream = process::Stream::as_stdout();
    spec.grouping = command_.new_session ? process::Grouping::own_session
                                         : process::Grouping::own_group;
    try {
      child_ = process::Child::spawn(spec);
    } catch (const process::SpawnError &e) {
      throw SpawnError(e.what());
    }
    pid_ = child_.pid();
    pipe_.reset(child_.take_stdout());
    // A pidfd wakes the wait when the shell exits; without one (old kernels) the wait's
    // regular timeout notices it.
    pidfd_.reset(child_.open_pidfd());
  }

  bool cancel_requested() const { return interrupt_.triggered() || (host_cancelled_ && host_cancelled_()); }

  // True once the shell has exited. It is left unreaped (WNOWAIT) until the group is ended.
  bool leader_exited() {
    if (leader_exited_) return true;
    siginfo_t info{};
    const int result = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    // ECHILD: a host that ignores SIGCHLD has the shell reaped automatically; it is gone.
    if ((result == 0 && info.si_pid == pid_) || (result < 0 && errno == ECHILD)) leader_exited_ = true;
    return leader_exited_;
  }

  RunEnd wait_for_end(Clock::time_point deadline) {
    for (;;) {
      if (cancel_requested()) return RunEnd::cancelled;
      // The shell is done. Output still open means a leftover background process holds the
      // pipe; end_group ends it and drain_output collects what is left.
      if (leader_exited()) return RunEnd::exited;
      const auto now = Clock::now();
      if (now >= deadline) return RunEnd::timed_out;
      wait_for_activity(std::min(std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1),
                                 kHostPollInterval));
    }
  }

  // Waits up to `timeout` for output, the shell's exit or an interrupt; reads what came.
  void wait_for_activity(milliseconds timeout) {
    std::vector<pollfd> fds;
    if (pipe_.open()) fds.push_back({pipe_.get(), POLLIN, 0});
    fds.push_back({interrupt_.fd(), POLLIN, 0});
    if (pidfd_.open() && !leader_exited_) fds.push_back({pidfd_.get(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), poll_timeout(timeout)) > 0 && pipe_.open() &&
        (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      read_available();
  }

  void read_available() {
    char buffer[kReadChunk];
    for (;;) {
      const ssize_t n = ::read(pipe_.get(), buffer, sizeof buffer);
      if (n > 0) {
        output_.append(std::string_view(buffer, static_cast<std::size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) pipe_.reset();  // every writer has closed it
      return;                      // n < 0: EAGAIN, nothing more for now
    }
  }

  // Ends every live process of the group: SIGKILL at once when `immediately`, otherwise
  // SIGTERM and SIGKILL for what is still alive after the grace period.
  void end_group(bool immediately) {
    // Each look reads /proc/<pid>/stat of every process on the machine: a command that ended
    // by itself with nothing left behind (the usual case) is looked at once, not twice.
    bool alive = amplifier::process::process_group_alive(pid_);
    if (!immediately && alive) {
      ::kill(-pid_, SIGTERM);
      wait_for_group_death(Clock::now() + limits_.kill_grace);
      alive = amplifier::process::process_group_alive(pid_);
    }
    if (alive || !leader_exited()) {
      ::kill(-pid_, SIGKILL);
      // The shell is unreaped, so its pid is still ours: safe to signal even if it somehow
      // left its group, and reap() must never wait on a live shell.
      ::kill(pid_, SIGKILL);
      wait_for_group_death(Clock::now() + limits_.kill_grace);
    }
  }

  void wait_for_group_death(Clock::time_point deadline) {
    while (amplifier::process::process_group_alive(pid_) && Clock::now() < deadline) {
      // Reading meanwhile lets a process that flushes output on SIGTERM finish doing so.
      if (pipe_.open()) {
        pollfd fd{pipe_.get(), POLLIN, 0};
        if (::poll(&fd, 1, poll_timeout(kGroupPollInterval)) > 0) read_available();
      } else {
        ::poll(nullptr, 0, poll_timeout(kGroupPollInterval));
      }
    }
  }

  // Collects output still in the pipe. A process that left the group may hold the pipe open
  // forever, so this stops at `deadline`.
  void drain_output(Clock::time_point deadline) {
    while (pipe_.open()) {
      const auto now = Clock::now();
      if (now >= deadline) break;
      pollfd fd{pipe_.get(), POLLIN, 0};
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1);
      if (::poll(&fd, 1, poll_timeout(left)) > 0) read_available();
    }
    pipe_.reset();
  }

  // The shell's wait status; exit code 255 when it was reaped elsewhere (SIGCHLD ignored) and
  // its real status is unknown.
  int reap() { return child_.wait(); }

  const Command &command_;
  const RunLimits &limits_;
  Interrupt &interrupt_;
  const std::function<bool()> &host_cancelled_;
  OutputCapture output_;
  amplifier::process::Child child_;
  pid_t pid_ = -1;
  bool leader_exited_ = false;
  Fd pipe_;
  Fd pidfd_;
};

}  // namespace

Interrupt::Interrupt() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

Interrupt::~Interrupt() { ::close(fd_); }

void Interrupt::trigger() noexcept {
  triggered_.store(true);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
}

Command shell_command(const std::string &command_line, const std::filesystem::path &working_dir) {
  return Command{{"/bin/bash", "-c", command_line}, working_dir, false, std::nullopt};
}

RunResult run_command(const Command &command, const RunLimits &limits, Interrupt &interrupt,
                      const std::function<bool()> &host_cancelled) {
  if (command.argv.empty()) throw SpawnError("no command to start");
  return CommandRun(command, limits, interrupt, host_cancelled).run();
}

}  // namespace tool_bash
