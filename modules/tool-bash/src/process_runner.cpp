#include "process_runner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
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

// The host's environment minus credentials; the pointers stay valid while `environ` is unchanged.
std::vector<char *> environment_without_secrets() {
  std::vector<char *> kept;
  for (char **entry = environ; *entry; ++entry) {
    std::string_view text(*entry);
    if (!tool_bash::looks_secret(text.substr(0, text.find('=')))) kept.push_back(*entry);
  }
  kept.push_back(nullptr);
  return kept;
}

// `entries` as an envp array (pointing into `entries`).
std::vector<char *> environment_of(std::vector<std::string> &entries) {
  std::vector<char *> envp;
  for (auto &entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  return envp;
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

// posix_spawn's attribute and file-action objects, destroyed on scope exit.
struct SpawnSetup {
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
};

// The state field and process group of /proc/<pid>/stat, or false when unreadable.
bool read_stat(const char *pid, char &state, long &group) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text)) return false;
  // "pid (comm) state ppid pgrp ..."; comm may contain spaces and ')', so parse after the last.
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  long parent = 0;
  return std::sscanf(text.c_str() + close + 1, " %c %ld %ld", &state, &parent, &group) == 3;
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
  void spawn() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw SpawnError(std::string("pipe: ") + std::strerror(errno));
    pipe_.reset(fds[0]);
    Fd write_end(fds[1]);
    ::fcntl(pipe_.get(), F_SETFL, O_NONBLOCK);

    SpawnSetup setup;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    // A group of its own (so the whole tree can be signalled), and the default signal
    // handling the host may have changed (an ignored SIGPIPE would break `yes | head`).
    // A new session makes a new group as well.
    const short group = command_.new_session ? POSIX_SPAWN_SETSID : POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setflags(&setup.attributes,
                             group | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&setup.attributes, 0);
    posix_spawnattr_setsigmask(&setup.attributes, &none);
    posix_spawnattr_setsigdefault(&setup.attributes, &all);
    posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 1);
    posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 2);
    posix_spawn_file_actions_addchdir_np(&setup.actions, command_.working_dir.c_str());

    std::vector<std::string> arguments = command_.argv;
    std::vector<char *> argv;
    for (auto &argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    std::vector<std::string> chosen = command_.environment.value_or(std::vector<std::string>{});
    std::vector<char *> env =
        command_.environment ? environment_of(chosen) : environment_without_secrets();
    const int error =
        ::posix_spawnp(&pid_, argv[0], &setup.actions, &setup.attributes, argv.data(), env.data());
    if (error != 0) {
      throw SpawnError("cannot start " + command_.argv[0] + " in " + command_.working_dir.string() +
                       ": " + std::strerror(error));
    }
    // A pidfd wakes the wait when the shell exits; without one (old kernels) the wait's
    // regular timeout notices it.
    pidfd_.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
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
    bool alive = process_group_alive(pid_);
    if (!immediately && alive) {
      ::kill(-pid_, SIGTERM);
      wait_for_group_death(Clock::now() + limits_.kill_grace);
      alive = process_group_alive(pid_);
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
    while (process_group_alive(pid_) && Clock::now() < deadline) {
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

  // The shell's wait status; when it was reaped elsewhere (SIGCHLD ignored) an exit code of
  // 255 reports that its real status is unknown.
  int reap() {
    int status = 0;
    for (;;) {
      if (::waitpid(pid_, &status, 0) >= 0) return status;
      if (errno != EINTR) return 255 << 8;
    }
  }

  const Command &command_;
  const RunLimits &limits_;
  Interrupt &interrupt_;
  const std::function<bool()> &host_cancelled_;
  OutputCapture output_;
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

bool process_group_alive(pid_t group) {
  DIR *proc = ::opendir("/proc");
  if (!proc) return ::kill(-group, 0) == 0;  // no /proc: zombies count as alive
  bool alive = false;
  while (const dirent *entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    char state = 0;
    long member_group = 0;
    if (read_stat(entry->d_name, state, member_group) && member_group == group &&
        state != 'Z' && state != 'X') {
      alive = true;
      break;
    }
  }
  ::closedir(proc);
  return alive;
}

Command shell_command(const std::string &command_line, const std::filesystem::path &working_dir) {
  return Command{{"/bin/bash", "-c", command_line}, working_dir, false};
}

RunResult run_command(const Command &command, const RunLimits &limits, Interrupt &interrupt,
                      const std::function<bool()> &host_cancelled) {
  if (command.argv.empty()) throw SpawnError("no command to start");
  return CommandRun(command, limits, interrupt, host_cancelled).run();
}

}  // namespace tool_bash
