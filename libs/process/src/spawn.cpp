// Child::spawn: the descriptors, the group and the signals set up once, for every caller.
//
// Two ways in, chosen by what the Spec asks for:
//   - posix_spawn (glibc's clone(CLONE_VM | CLONE_VFORK)): no copy of the host's page tables,
//     which matters in a serve process holding a thousand sessions; used whenever nothing
//     has to run in the child before exec;
//   - fork on the one spawn thread, then code of ours before exec: only for a death signal
//     (PR_SET_PDEATHSIG) or an address-space limit, which posix_spawn cannot set.
// Both give the child the same descriptors, group and signals.
#include "amplifier/process/child.hpp"
#include "amplifier/process/environment.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace amplifier::process {
namespace {

// Descriptors the child gets are numbered below this; everything the parent prepares for it
// is moved at or above it first, so no dup2 onto a target can clobber another's source.
constexpr int kFirstFreeDescriptor = 10;

class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor &operator=(Descriptor &&other) noexcept {
    reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~Descriptor() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

[[noreturn]] void fail(const std::string &what) {
  throw SpawnError(what + ": " + std::strerror(errno));
}

// A close-on-exec copy of `fd` numbered at or above kFirstFreeDescriptor.
Descriptor high_copy(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, kFirstFreeDescriptor);
  if (copy < 0) fail("cannot pass descriptor " + std::to_string(fd) + " to the child");
  return Descriptor(copy);
}

struct PipeEnds {
  Descriptor read, write;
};

PipeEnds make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("pipe");
  Descriptor read(fds[0]), write(fds[1]);
  return {high_copy(read.get()), high_copy(write.get())};
}

// Everything the child needs, prepared before it exists: after fork only async-signal-safe
// calls are allowed, so nothing here is computed there.
struct Launch {
  std::string program;
  std::vector<std::string> argv_text, env_text;
  std::vector<char *> argv, env;
  std::string working_dir;
  // {number in the child, the parent's descriptor}; sources are all >= kFirstFreeDescriptor.
  std::vector<std::pair<int, int>> descriptors;
  std::vector<Descriptor> sources;  // closed once the child has its copies
  bool keep[kFirstFreeDescriptor] = {};
  // The host's ends of the pipes.
  Descriptor stdin_pipe, stdout_pipe, stderr_pipe;
  // The spec's limit, lowered to the host's own hard limit (a child may not be given more).
  rlim_t address_space_limit = 0;
};

void give(Launch &launch, int target, Descriptor source) {
  launch.descriptors.emplace_back(target, source.get());
  launch.keep[target] = true;
  launch.sources.push_back(std::move(source));
}

// The source for a standard stream; `host_end` receives the host's end of a pipe.
void plan_stream(Launch &launch, int target, const Stream &stream, Descriptor &host_end,
                 int stdout_source) {
  switch (stream.kind) {
    case Stream::Kind::null: {
      Descriptor null(::open("/dev/null", (target == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC));
      if (null.get() < 0) fail("/dev/null");
      give(launch, target, high_copy(null.get()));
      return;
    }
    case Stream::Kind::pipe: {
      PipeEnds ends = make_pipe();
      const bool child_reads = target == 0;
      host_end = std::move(child_reads ? ends.write : ends.read);
      ::fcntl(host_end.get(), F_SETFL, ::fcntl(host_end.get(), F_GETFL) | O_NONBLOCK);
      give(launch, target, std::move(child_reads ? ends.read : ends.write));
      return;
    }
    case Stream::Kind::inherit: {
      // The host's own stream, or /dev/null when the host has it closed (`>&-`).
      if (::fcntl(target, F_GETFD) < 0) return plan_stream(launch, target, Stream::null(), host_end, stdout_source);
      give(launch, target, high_copy(target));
      return;
    }
    case Stream::Kind::descriptor:
      give(launch, target, high_copy(stream.fd));
      return;
    case Stream::Kind::as_stdout:
      if (target != 2 || stdout_source < 0)
        throw SpawnError("only stderr can go where stdout goes");
      give(launch, target, high_copy(stdout_source));
      return;
  }
}

Launch plan_launch(const Spec &spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) throw SpawnError("no command to start");
  Launch launch;
  launch.env_text = spec.environment ? *spec.environment : environment_with({});
  launch.program = find_program(spec.argv[0], path_of(launch.env_text)).string();
  if (launch.program.empty())
    throw SpawnError("cannot start '" + spec.argv[0] + "': command not found on PATH");
  launch.argv_text = spec.argv;
  launch.argv = c_string_pointers(launch.argv_text);
  launch.env = c_string_pointers(launch.env_text);
  launch.working_dir = spec.working_dir.string();
  if (spec.address_space_limit > 0) {
    rlimit current{};
    launch.address_space_limit = spec.address_space_limit;
    if (::getrlimit(RLIMIT_AS, &current) == 0 && current.rlim_max != RLIM_INFINITY)
      launch.address_space_limit = std::min<rlim_t>(launch.address_space_limit, current.rlim_max);
  }

  plan_stream(launch, 0, spec.stdin_stream, launch.stdin_pipe, -1);
  plan_stream(launch, 1, spec.stdout_stream, launch.stdout_pipe, -1);
  plan_stream(launch, 2, spec.stderr_stream, launch.stderr_pipe, launch.descriptors[1].second);
  for (const auto &[target, fd] : spec.extra_descriptors) {
    if (target < 3 || target >= kFirstFreeDescriptor || launch.keep[target])
      throw SpawnError("descriptor " + std::to_string(target) +
                       " cannot be given to a child (3 to 9, each once)");
    give(launch, target, high_copy(fd));
  }
  return launch;
}

std::string start_failure(const Spec &spec, const Launch &launch, int error) {
  std::string text = "cannot start '" + spec.argv[0] + "'";
  if (launch.program != spec.argv[0]) text += " (" + launch.program + ")";
  if (!launch.working_dir.empty()) text += " in " + launch.working_dir;
  return text + ": " + std::strerror(error);
}

// ---- posix_spawn -------------------------------------------------------------------------

pid_t spawn_without_fork(const Spec &spec, const Launch &launch) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  for (const auto &[target, source] : launch.descriptors)
    posix_spawn_file_actions_adddup2(&actions, source, target);
  for (int fd = 3; fd < kFirstFreeDescriptor; ++fd)
    if (!launch.keep[fd]) posix_spawn_file_actions_addclose(&actions, fd);
  posix_spawn_file_actions_addclosefrom_np(&actions, kFirstFreeDescriptor);
  if (!launch.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, launch.working_dir.c_str());

  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  const short grouping =
      spec.grouping == Grouping::own_session ? POSIX_SPAWN_SETSID : POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&attributes, grouping | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);

  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, launch.program.c_str(), &actions, &attributes,
                                  launch.argv.data(), launch.env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw SpawnError(start_failure(spec, launch, error));
  return pid;
}

// ---- fork on the spawn thread --------------------------------------------------------------

// Runs jobs on one thread that lives as long as the process: a child's death signal is tied to
// the thread that forked it, and the callers' threads come and go.
class SpawnThread {
 public:
  static SpawnThread &instance() {
    static auto *thread = new SpawnThread();  // never destroyed: children may outlive main()
    return *thread;
  }

  // This library is linked into modules (tool-mcp), which the host may unload. The thread runs
  // code of the object that holds this function, so that object is pinned in memory first
  // (RTLD_NODELETE on the already-loaded object; the executable itself is never unloaded).
  // Trust: RTLD_NOLOAD loads nothing: only an object the operator's plan already mounted is
  // kept, so no party can make this load code.
  static void pin_this_object() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void *>(&SpawnThread::pin_this_object), &info) == 0 ||
        !info.dli_fname)
      return;
    ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);  // the handle is leaked
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
  SpawnThread() {
    pin_this_object();
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

// Between fork and exec: async-signal-safe calls only. Reports errno through `report`
// (close-on-exec: a successful exec closes it, which is how the parent learns it worked).
[[noreturn]] void become_child(const Spec &spec, const Launch &launch, int report, pid_t host) {
  auto fail_with = [report](int error) {
    while (::write(report, &error, sizeof error) < 0 && errno == EINTR) {
    }
    ::_exit(127);
  };
  if (spec.die_with_host) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_with(errno);
    if (::getppid() != host) ::_exit(127);  // the host died before the signal was set
  }
  if (spec.grouping == Grouping::own_session ? ::setsid() < 0 : ::setpgid(0, 0) != 0)
    fail_with(errno);
  for (const auto &[target, source] : launch.descriptors)
    if (::dup2(source, target) < 0) fail_with(errno);
  for (int fd = 3; fd < kFirstFreeDescriptor; ++fd)
    if (!launch.keep[fd]) ::close(fd);
  ::syscall(SYS_close_range, kFirstFreeDescriptor, report - 1, 0);
  ::syscall(SYS_close_range, report + 1, ~0U, 0);
  if (!launch.working_dir.empty() && ::chdir(launch.working_dir.c_str()) != 0) fail_with(errno);
  if (launch.address_space_limit > 0) {
    const rlimit limit{launch.address_space_limit, launch.address_space_limit};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) fail_with(errno);
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(launch.program.c_str(), launch.argv.data(), launch.env.data());
  fail_with(errno);
  ::_exit(127);
}

// Nothing (end of file) means the exec worked.
int read_exec_error(int fd) {
  int error = 0;
  ssize_t got;
  while ((got = ::read(fd, &error, sizeof error)) < 0 && errno == EINTR) {
  }
  return got == sizeof error ? error : 0;
}

pid_t spawn_with_fork(const Spec &spec, const Launch &launch) {
  PipeEnds report = make_pipe();
  const pid_t host = ::getpid();
  const int report_fd = report.write.get();
  auto [pid, fork_errno] = SpawnThread::instance().run([&] {
    const pid_t child = ::fork();
    if (child == 0) become_child(spec, launch, report_fd, host);
    return std::pair<pid_t, int>(child, errno);
  });
  report.write.reset();
  if (pid < 0) throw SpawnError(start_failure(spec, launch, fork_errno));
  if (const int error = read_exec_error(report.read.get())) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw SpawnError(start_failure(spec, launch, error));
  }
  return pid;
}

}  // namespace

// Trust: this decides nothing about what runs; each caller says whose command it is and gates
// it (tool-bash: the model's, under the plan's policy; tool-mcp: the operator's or a trusted
// folder's server; the isolation helper and validate: the operator's plan; module builds: an
// operator-trusted source).
Child Child::spawn(const Spec &spec) {
  Launch launch = plan_launch(spec);
  const bool needs_fork = spec.die_with_host || spec.address_space_limit > 0;
  Child child;
  child.pid_ = needs_fork ? spawn_with_fork(spec, launch) : spawn_without_fork(spec, launch);
  child.stdin_ = launch.stdin_pipe.release();
  child.stdout_ = launch.stdout_pipe.release();
  child.stderr_ = launch.stderr_pipe.release();
  return child;
}

}  // namespace amplifier::process
