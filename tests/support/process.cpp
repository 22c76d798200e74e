#include "process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <optional>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace amp_test {
namespace {

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

[[noreturn]] void exec_child(const std::vector<std::string> &argv, const ProcessOptions &o,
                             int in_fd, int out_fd, int err_fd) {
  setpgid(0, 0);  // its own group, so a timeout kills everything it started
  dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  // Only 0-2 stay: a daemon the child starts (pg_ctl's server) must not keep the pipes open,
  // or the output would never end.
  for (int fd : {in_fd, out_fd, err_fd})
    if (fd > 2) close(fd);
  for (const auto &name : o.unset_env) unsetenv(name.c_str());
  for (const auto &[k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
  if (!o.working_dir.empty() && chdir(o.working_dir.c_str()) != 0) _exit(126);
#ifndef AMP_SANITIZER_BUILD
  if (o.data_limit_bytes != 0) {
    const rlimit limit{o.data_limit_bytes, o.data_limit_bytes};
    if (setrlimit(RLIMIT_DATA, &limit) != 0) _exit(125);
  }
#endif
  std::vector<char *> args;
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string> &argv, const ProcessOptions &o) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) || pipe(out_pipe) || pipe(err_pipe)) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    exec_child(argv, o, in_pipe[0], out_pipe[1], err_pipe[1]);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  std::signal(SIGPIPE, SIG_IGN);
  set_nonblocking(in_pipe[1]);
  set_nonblocking(out_pipe[0]);
  set_nonblocking(err_pipe[0]);

  ProcessResult result;
  std::size_t written = 0;
  int in_fd = in_pipe[1];
  if (o.stdin_text.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  auto deadline = std::chrono::steady_clock::now() + o.timeout;
  std::optional<std::chrono::steady_clock::time_point> signalled;
  int open_outputs = 2;
  int fds[2] = {out_pipe[0], err_pipe[0]};
  std::string *sinks[2] = {&result.out, &result.err};
  while (open_outputs > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd polls[3];
    int n = 0;
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) polls[n++] = {fds[i], POLLIN, 0};
    if (in_fd >= 0) polls[n++] = {in_fd, POLLOUT, 0};
    if (poll(polls, n, static_cast<int>(std::min<long>(left.count(), 100))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i] < 0) continue;
      char buf[8192];
      ssize_t got = read(fds[i], buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(got));
        if (o.signal_to_send != 0 && !signalled && sinks[i]->find(o.signal_marker) != std::string::npos) {
          kill(pid, o.signal_to_send);
          signalled = std::chrono::steady_clock::now();
        }
      }
      else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(fds[i]);
        fds[i] = -1;
        --open_outputs;
      }
    }
    if (in_fd >= 0) {
      ssize_t put = write(in_fd, o.stdin_text.data() + written, o.stdin_text.size() - written);
      if (put > 0) written += static_cast<std::size_t>(put);
      if (written == o.stdin_text.size() || (put < 0 && errno != EAGAIN)) {
        close(in_fd);
        in_fd = -1;
      }
    }
  }
  for (int fd : fds)
    if (fd >= 0) close(fd);
  if (in_fd >= 0) close(in_fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (signalled)
    result.signal_to_exit = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - *signalled);
  return result;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace amp_test
