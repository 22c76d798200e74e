#include "amplifier/module_support/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

extern char **environ;

namespace amplifier::module_support {
namespace {

std::string path_of(const std::vector<std::string> &environment) {
  for (const auto &entry : environment)
    if (entry.starts_with("PATH=")) return entry.substr(5);
  return "/usr/local/bin:/usr/bin:/bin";
}

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw SpawnError(std::string("pipe: ") + std::strerror(errno));
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() { read = close_fd(read); }
  void close_write() { write = close_fd(write); }
  int take_read() { return std::exchange(read, -1); }
  int take_write() { return std::exchange(write, -1); }
  static int close_fd(int fd) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
};

// Everything the child needs, prepared before fork: after it only async-signal-safe calls.
struct ExecPlan {
  std::string program;
  std::vector<std::string> argv_text, env_text;
  std::vector<char *> argv, env;
  std::string working_dir;
};

// Between fork and exec. Reports errno through `report` (close-on-exec: a successful exec
// closes it, which is how the parent learns the exec worked). Never returns.
[[noreturn]] void become_child(const ExecPlan &plan, Pipe &in, Pipe &out, Pipe &err, int report,
                               pid_t parent) {
  auto fail = [report](int error) {
    while (::write(report, &error, sizeof error) < 0 && errno == EINTR) {
    }
    ::_exit(127);
  };
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
  if (::getppid() != parent) ::_exit(127);  // the host died before the death signal was set
  ::setpgid(0, 0);
  if (::dup2(in.read, 0) < 0 || ::dup2(out.write, 1) < 0 || ::dup2(err.write, 2) < 0) fail(errno);
  if (!plan.working_dir.empty() && ::chdir(plan.working_dir.c_str()) != 0) fail(errno);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Every other descriptor of the host (sockets, other children's pipes) stays behind; the
  // report pipe is close-on-exec.
  for (int fd = 3; fd < report; ++fd) ::close(fd);
  ::syscall(SYS_close_range, report + 1, ~0U, 0);
  ::execve(plan.program.c_str(), plan.argv.data(), plan.env.data());
  fail(errno);
  ::_exit(127);
}

ExecPlan plan_for(const ChildSpec &spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) throw SpawnError("no command to start");
  ExecPlan plan;
  plan.env_text = environment_with(spec.env);
  plan.program = find_program(spec.argv[0], path_of(plan.env_text)).string();
  if (plan.program.empty())
    throw SpawnError("cannot start '" + spec.argv[0] + "': command not found on PATH");
  plan.argv_text = spec.argv;
  plan.argv = c_string_pointers(plan.argv_text);
  plan.env = c_string_pointers(plan.env_text);
  plan.working_dir = spec.working_dir.string();
  return plan;
}

std::string killed_by(int signal) {
  const char *name = ::strsignal(signal);
  return "killed by signal " + std::to_string(signal) +
         (name ? std::string(" (") + name + ")" : "");
}

// Waits for the exec report: nothing (EOF) means the exec worked.
int read_exec_error(int fd) {
  int error = 0;
  ssize_t got;
  while ((got = ::read(fd, &error, sizeof error)) < 0 && errno == EINTR) {
  }
  return got == sizeof error ? error : 0;
}

}  // namespace

std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>> &overrides) {
  std::map<std::string, std::string> variables;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    variables[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
  }
  for (const auto &[name, value] : overrides) variables[name] = value;
  std::vector<std::string> out;
  for (const auto &[name, value] : variables) out.push_back(name + "=" + value);
  return out;
}

std::vector<char *> c_string_pointers(std::vector<std::string> &strings) {
  std::vector<char *> out;
  for (auto &text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

std::filesystem::path find_program(const std::string &name, const std::string &path_list) {
  if (name.find('/') != std::string::npos) return name;
  std::size_t start = 0;
  while (start <= path_list.size()) {
    std::size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    std::string directory = path_list.substr(start, end - start);
    if (directory.empty()) directory = ".";
    std::filesystem::path candidate = std::filesystem::path(directory) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

ChildProcess::ChildProcess(const ChildSpec &spec) {
  ExecPlan plan = plan_for(spec);
  Pipe in, out, err, report;
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw SpawnError(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) become_child(plan, in, out, err, report.write, parent);
  report.close_write();
  if (const int error = read_exec_error(report.read)) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    throw SpawnError("cannot start '" + spec.argv[0] + "' (" + plan.program +
                     "): " + std::strerror(error));
  }
  stdin_ = in.take_write();
  stdout_ = out.take_read();
  stderr_ = err.take_read();
  for (int fd : {stdin_, stdout_, stderr_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  stop(std::chrono::milliseconds(500));
  for (int fd : {stdout_, stderr_})
    if (fd >= 0) ::close(fd);
}

void ChildProcess::close_stdin() noexcept {
  if (stdin_ >= 0) ::close(stdin_);
  stdin_ = -1;
}

bool ChildProcess::exited() const noexcept {
  if (reaped_) return true;
  siginfo_t info{};
  const int result = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  return (result == 0 && info.si_pid == pid_) || (result < 0 && errno == ECHILD);
}

std::optional<std::string> ChildProcess::exit_reason() const {
  if (reaped_) return describe_wait_status(status_);
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid_)
    return std::nullopt;
  if (info.si_code == CLD_EXITED) return "exited with status " + std::to_string(info.si_status);
  return killed_by(info.si_status);
}

int ChildProcess::stop(std::chrono::milliseconds grace) {
  if (reaped_) return status_;
  close_stdin();
  auto wait_exit = [this](std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!exited() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  // Polite first (the MCP stdio transport's order): end of input, then SIGTERM, then SIGKILL.
  wait_exit(grace / 2);
  if (!exited()) ::kill(-pid_, SIGTERM);
  wait_exit(grace / 2);
  // The whole group, leader exited or not: a grandchild must not outlive the server. The
  // leader is still unreaped here, so the group id cannot belong to anyone else.
  ::kill(-pid_, SIGKILL);
  while (::waitpid(pid_, &status_, 0) < 0) {
    if (errno != EINTR) {
      status_ = 0;  // reaped elsewhere (a host that ignores SIGCHLD)
      break;
    }
  }
  reaped_ = true;
  return status_;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return killed_by(WTERMSIG(status));
  return "ended (wait status " + std::to_string(status) + ")";
}

}  // namespace amplifier::module_support
