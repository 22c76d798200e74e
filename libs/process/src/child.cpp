#include "amplifier/process/child.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace amplifier::process {
namespace {

std::string killed_by(int signal) {
  const char *name = ::sigabbrev_np(signal);
  return "killed by signal " + std::to_string(signal) +
         (name ? std::string(" (SIG") + name + ")" : std::string());
}

void close_fd(int &fd) noexcept {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Child::Child(Child &&other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      stdin_(std::exchange(other.stdin_, -1)),
      stdout_(std::exchange(other.stdout_, -1)),
      stderr_(std::exchange(other.stderr_, -1)),
      reaping_(std::exchange(other.reaping_, std::make_unique<Reaping>())) {}

Child &Child::operator=(Child &&other) noexcept {
  if (this != &other) {
    if (pid_ > 0) stop(std::chrono::milliseconds(500));
    close_pipes();
    pid_ = std::exchange(other.pid_, -1);
    stdin_ = std::exchange(other.stdin_, -1);
    stdout_ = std::exchange(other.stdout_, -1);
    stderr_ = std::exchange(other.stderr_, -1);
    reaping_ = std::exchange(other.reaping_, std::make_unique<Reaping>());
  }
  return *this;
}

Child::~Child() {
  if (pid_ > 0) stop(std::chrono::milliseconds(500));
  close_pipes();
}

void Child::close_pipes() noexcept {
  close_fd(stdin_);
  close_fd(stdout_);
  close_fd(stderr_);
}

void Child::close_stdin() noexcept { close_fd(stdin_); }

bool Child::exited_locked() const noexcept {
  if (reaping_->reaped || pid_ <= 0) return true;
  siginfo_t info{};
  const int result = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  // ECHILD: a host that ignores SIGCHLD has it reaped automatically; it is gone.
  return (result == 0 && info.si_pid == pid_) || (result < 0 && errno == ECHILD);
}

bool Child::exited() const noexcept {
  std::lock_guard lock(reaping_->mutex);
  return exited_locked();
}

std::optional<std::string> Child::exit_reason() const {
  std::lock_guard lock(reaping_->mutex);
  if (reaping_->reaped) return describe_wait_status(reaping_->status);
  if (pid_ <= 0) return std::nullopt;
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid_)
    return std::nullopt;
  if (info.si_code == CLD_EXITED) return "exited with status " + std::to_string(info.si_status);
  return killed_by(info.si_status);
}

int Child::wait() {
  std::lock_guard lock(reaping_->mutex);
  if (reaping_->reaped || pid_ <= 0) return reaping_->status;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) {
      status = 255 << 8;  // reaped elsewhere (a host that ignores SIGCHLD): unknown
      break;
    }
  }
  reaping_->status = status;
  reaping_->reaped = true;
  return status;
}

void Child::signal_group(int signal) noexcept {
  std::lock_guard lock(reaping_->mutex);
  if (!reaping_->reaped && pid_ > 0) ::kill(-pid_, signal);
}

int Child::stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(reaping_->mutex);
    if (reaping_->reaped || pid_ <= 0) return reaping_->status;
  }
  close_stdin();
  auto wait_exit = [this](std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!exited() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  // Polite first (the MCP stdio transport's order): end of input, then SIGTERM, then SIGKILL.
  wait_exit(grace / 2);
  if (!exited()) signal_group(SIGTERM);
  wait_exit(grace / 2);
  // The whole group, leader exited or not: a grandchild must not outlive the child. The leader
  // is still unreaped here, so the group id cannot belong to anyone else.
  {
    std::lock_guard lock(reaping_->mutex);
    if (!reaping_->reaped && pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);  // in case it left its group
    }
  }
  return wait();
}

int Child::open_pidfd() const noexcept {
  std::lock_guard lock(reaping_->mutex);
  if (reaping_->reaped || pid_ <= 0) return -1;
  return static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return killed_by(WTERMSIG(status));
  return "ended (wait status " + std::to_string(status) + ")";
}

}  // namespace amplifier::process
