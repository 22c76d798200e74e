#include "isolation/spawn.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <future>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <system_error>
#include <thread>
#include <unistd.h>

namespace amplifier::isolation {
namespace {

constexpr int kChildSocketFd = 3;

std::system_error errno_error(const char *what) {
  return std::system_error(errno, std::generic_category(), what);
}

// Runs jobs on one thread that lives as long as the process: a child's death signal is tied to
// the thread that forked it, and pool threads come and go.
class ForkThread {
 public:
  static ForkThread &instance() {
    static auto *thread = new ForkThread();  // never destroyed: children may outlive main()
    return *thread;
  }
  template <class Fn>
  auto run(Fn fn) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto result = task.get_future();
    {
      std::lock_guard lock(mutex_);
      jobs_.emplace_back([&task] { task(); });
    }
    ready_.notify_one();
    return result.get();
  }

 private:
  ForkThread() {
    std::thread([this] {
      for (;;) {
        std::function<void()> job;
        {
          std::unique_lock lock(mutex_);
          ready_.wait(lock, [&] { return !jobs_.empty(); });
          job = std::move(jobs_.front());
          jobs_.pop_front();
        }
        job();
      }
    }).detach();
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
};

// Between fork and exec: async-signal-safe calls only. Never returns.
[[noreturn]] void become_module_host(const char *program, const char *library,
                                     const char *max_message_mb, int socket_fd, int output_fd,
                                     pid_t host, std::size_t memory_limit_mb) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != host) ::_exit(127);
  ::setpgid(0, 0);
  if (socket_fd == kChildSocketFd) {
    ::fcntl(socket_fd, F_SETFD, 0);
  } else if (::dup2(socket_fd, kChildSocketFd) < 0) {
    ::_exit(127);
  }
  if (::dup2(output_fd, STDERR_FILENO) < 0) ::_exit(127);
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::syscall(SYS_close_range, kChildSocketFd + 1, ~0U, 0);
  if (memory_limit_mb > 0) {
    rlim_t bytes = rlim_t(memory_limit_mb) * 1024 * 1024;
    rlimit limit{bytes, bytes};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char *const argv[] = {const_cast<char *>(program), const_cast<char *>(library),
                        const_cast<char *>(max_message_mb), nullptr};
  ::execv(program, argv);
  ::_exit(127);
}

}  // namespace

SpawnedProcess spawn_module_host(const std::filesystem::path &program,
                                 const std::filesystem::path &library,
                                 std::size_t memory_limit_mb, std::size_t max_message_mb) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw errno_error("socketpair");
  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    throw errno_error("pipe");
  }
  const std::string program_text = program.string();
  const std::string library_text = library.string();
  const std::string max_message_text = std::to_string(max_message_mb);
  const pid_t host = ::getpid();
  auto [pid, fork_errno] = ForkThread::instance().run([&] {
    pid_t child = ::fork();
    if (child == 0)
      become_module_host(program_text.c_str(), library_text.c_str(), max_message_text.c_str(),
                         sockets[1], output[1], host, memory_limit_mb);
    return std::pair<pid_t, int>(child, errno);
  });
  ::close(sockets[1]);
  ::close(output[1]);
  if (pid < 0) {
    ::close(sockets[0]);
    ::close(output[0]);
    throw std::system_error(fork_errno, std::generic_category(), "fork");
  }
  return SpawnedProcess{pid, sockets[0], output[0]};
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
  if (WIFSIGNALED(wait_status)) {
    int signal = WTERMSIG(wait_status);
    const char *name = sigabbrev_np(signal);
    return fmt::format("killed by signal {} (SIG{})", signal, name ? name : "?");
  }
  if (WIFEXITED(wait_status)) return fmt::format("exited with status {}", WEXITSTATUS(wait_status));
  return "ended";
}

}  // namespace amplifier::isolation
