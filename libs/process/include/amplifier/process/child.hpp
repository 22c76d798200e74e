// The one way this code base starts a child process: the host's module builds and git, the
// isolation helper (amplifier-module-host), validate's crash-isolated checks, tool-bash's
// commands and tool-mcp's stdio servers all describe what they want in a Spec and get a Child.
//
// What every child gets, whoever starts it:
//   - stdin, stdout and stderr exactly as the Spec says (default: all three /dev/null), and
//     every other descriptor of the host closed (sockets, other children's pipes, the
//     database connection): nothing leaks by accident;
//   - signal dispositions and the signal mask reset to their defaults (a host that ignores
//     SIGPIPE must not hand that to `yes | head`);
//   - a process group of its own (or a session of its own), so the whole tree it starts can be
//     signalled, and a Ctrl-C at the terminal stays the host's to handle;
//   - exec failures (no such program, no such working folder) reported as SpawnError before
//     spawn() returns, naming the command and the reason.
//
// Trust: this library decides nothing about WHAT runs. Each caller states whose command it
// is (the operator's plan, a model's tool call) and what that party may do; see the callers.
//
// THREADS: spawn() may be called from any thread. exited(), exit_reason(), wait(), stop() and
// signal_group() may be called from several threads at once (a reader asking how the child
// ended while another stops it): reaping and signalling exclude each other, so a signal never
// reaches a pid that was reaped and reused. The pipe accessors are for one thread at a time.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace amplifier::process {

// The child could not be started. The message names the command and the reason.
class SpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where one of the child's standard streams goes.
struct Stream {
  enum class Kind {
    null,       // /dev/null
    pipe,       // a pipe whose other end the Child holds (non-blocking, close-on-exec)
    inherit,    // the host's own descriptor
    descriptor, // a descriptor of the caller's (copied; the caller keeps and closes its own)
    as_stdout,  // stderr only: the same pipe or file as stdout (interleaved as written)
  };
  Kind kind = Kind::null;
  int fd = -1;  // for descriptor

  static Stream null() { return {Kind::null}; }
  static Stream pipe() { return {Kind::pipe}; }
  static Stream inherit() { return {Kind::inherit}; }
  static Stream descriptor(int fd) { return {Kind::descriptor, fd}; }
  static Stream as_stdout() { return {Kind::as_stdout}; }
};

enum class Grouping {
  own_group,    // setpgid(0, 0): the child leads a new process group
  own_session,  // setsid(): also no controlling terminal, so it cannot push input into the
                // user's terminal (TIOCSTI); its group id is still its pid
};

struct Spec {
  // argv[0] is looked up on the child's PATH when it has no '/'.
  std::vector<std::string> argv;
  // The child's whole environment ("NAME=value" each). Unset: the host's own.
  std::optional<std::vector<std::string>> environment;
  std::filesystem::path working_dir;  // empty: the host's
  Stream stdin_stream = Stream::null();
  Stream stdout_stream = Stream::null();
  Stream stderr_stream = Stream::null();
  // More descriptors the child gets: {number in the child (3..9), the caller's descriptor}.
  std::vector<std::pair<int, int>> extra_descriptors;
  Grouping grouping = Grouping::own_group;
  // SIGKILL the child when the host dies (PR_SET_PDEATHSIG). The kernel ties that signal to
  // the THREAD that forked, so such children are forked by one thread that lives as long as
  // the process, never by the caller's (a pool thread may exit and take the child with it).
  bool die_with_host = false;
  // RLIMIT_AS for the child, in bytes; 0 leaves the host's.
  std::size_t address_space_limit = 0;
};

// A started child. It owns the pid until reaped (or release()d): while the child is unreaped
// its pid and group id cannot be reused, so signalling them never reaches a stranger.
class Child {
 public:
  // Starts the child. Throws SpawnError.
  static Child spawn(const Spec &spec);

  Child() = default;
  Child(Child &&other) noexcept;
  Child &operator=(Child &&other) noexcept;
  Child(const Child &) = delete;
  Child &operator=(const Child &) = delete;
  // Ends the child if it is still owned: stop(500 ms).
  ~Child();

  pid_t pid() const noexcept { return pid_; }
  // The host's ends of the pipes asked for (non-blocking; -1 when not piped or closed). The
  // Child closes them when destroyed; take_*() hands one over to the caller instead.
  int stdin_fd() const noexcept { return stdin_; }
  int stdout_fd() const noexcept { return stdout_; }
  int stderr_fd() const noexcept { return stderr_; }
  int take_stdout() noexcept { return std::exchange(stdout_, -1); }
  int take_stderr() noexcept { return std::exchange(stderr_, -1); }
  void close_stdin() noexcept;

  // True once the child has exited. It stays unreaped (see above) until wait() or stop().
  bool exited() const noexcept;
  // How it ended ("exited with status 1", "killed by signal 9 (SIGKILL)"), read without
  // reaping; nullopt while it runs.
  std::optional<std::string> exit_reason() const;
  // Reaps the child, waiting as long as it takes. Returns its wait status; when something else
  // reaped it (a host that ignores SIGCHLD) the status is unknown, reported as exit code 255.
  int wait();
  // Sends `signal` to the child's whole process group (nothing once reaped).
  void signal_group(int signal) noexcept;
  // Ends the child and everything in its group: closes stdin (a well-behaved server exits on
  // that), after half of `grace` SIGTERM to the group, after the other half SIGKILL to the
  // group (sent in any case, for what the child left running), then reaps it. Returns the wait
  // status. Idempotent.
  int stop(std::chrono::milliseconds grace);
  // A pidfd for the child (readable once it exits), -1 where the kernel has none. Owned by
  // the caller.
  int open_pidfd() const noexcept;
  // Gives up ownership: the caller reaps the pid. The pipes stay with the Child.
  pid_t release() noexcept { return std::exchange(pid_, -1); }

 private:
  void close_pipes() noexcept;
  // The reaping state, shared by the threads that ask about the child.
  struct Reaping {
    std::mutex mutex;
    bool reaped = false;
    int status = 0;
  };
  bool exited_locked() const noexcept;
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int stderr_ = -1;
  std::unique_ptr<Reaping> reaping_ = std::make_unique<Reaping>();
};

// "exited with status 1", "killed by signal 9 (SIGKILL)".
std::string describe_wait_status(int status);

// True while a process other than a zombie belongs to process group `group` (read from
// /proc; without /proc, kill(-group, 0), which counts zombies as alive).
bool process_group_alive(pid_t group);

}  // namespace amplifier::process
