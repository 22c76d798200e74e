#include "isolation.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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

[[noreturn]] void throw_errno(const char *what) {
  throw std::system_error(errno, std::generic_category(), what);
}

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
    read = fds[0];
    // Above the standard descriptors and the channel, so dup2 onto them always copies (and so
    // clears close-on-exec on the child's copy).
    write = fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
    ::close(fds[1]);
    if (write < 0) throw_errno("fcntl");
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

pid_t spawn_child(const IsolationOptions &options, const Pipe &channel, const Pipe &errors) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, errors.write, 2);
  posix_spawn_file_actions_adddup2(&actions, channel.write, kChannelFd);
  posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char *> argv, envp;
  for (const auto &a : options.argv) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto &e : options.environment) envp.push_back(const_cast<char *>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw std::system_error(error, std::generic_category(), "posix_spawn");
  return pid;
}

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

IsolatedRun run_isolated(const IsolationOptions &options) {
  Pipe channel, errors;
  const pid_t pid = spawn_child(options, channel, errors);
  channel.close_write();
  errors.close_write();
  IsolatedRun run;
  const auto deadline = Clock::now() + options.budget;
  bool exited = false;
  int status = 0;
  int open_fds[2] = {channel.read, errors.read};  // -1 once at end of file
  std::string *sinks[2] = {&run.channel_text, &run.stderr_tail};
  // Read both pipes until the child has exited; its stray descendants may keep the pipes
  // open, so the end of the child, not end of file, ends the wait.
  while (!exited) {
    pollfd fds[2] = {{open_fds[0], POLLIN, 0}, {open_fds[1], POLLIN, 0}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 && !run.timed_out) {
      run.timed_out = true;
      kill(-pid, SIGKILL);
    }
    poll(fds, 2, static_cast<int>(std::clamp<long>(left.count(), 0, 50)));
    for (int i = 0; i < 2; ++i)
      if (open_fds[i] >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
          drain(open_fds[i], *sinks[i]) == ReadState::End)
        open_fds[i] = -1;
    keep_tail(run.stderr_tail);
    exited = waitpid(pid, &status, run.timed_out ? 0 : WNOHANG) == pid;
  }
  kill(-pid, SIGKILL);  // whatever the check left running
  for (int i = 0; i < 2; ++i) {
    if (open_fds[i] < 0) continue;
    fcntl(open_fds[i], F_SETFL, O_NONBLOCK);
    while (drain(open_fds[i], *sinks[i]) == ReadState::Data) {
    }
  }
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
