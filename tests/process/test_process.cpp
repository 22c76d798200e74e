// amplifier::process with real children (/bin/sh, cat): their descriptors, streams, group,
// session, signals and limits as seen from inside them (/proc/self), and how they end.
#include "amplifier/process/child.hpp"
#include "amplifier/process/environment.hpp"
#include "amplifier/process/run.hpp"

#include "temp_files.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using namespace amplifier::process;
using namespace std::chrono_literals;

namespace {

// Everything readable on `fd` until its end.
std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd readable{fd, POLLIN, 0};
      ::poll(&readable, 1, 5000);
      continue;
    }
    return text;
  }
}

Spec shell(const std::string &script, bool fork_path = false) {
  Spec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.stdout_stream = Stream::pipe();
  // The second way in: fork on the spawn thread. A memory limit alone asks for it.
  if (fork_path) spec.address_space_limit = std::size_t{1} << 33;
  return spec;
}

std::string output_of(const Spec &spec) {
  Child child = Child::spawn(spec);
  std::string text = read_all(child.stdout_fd());
  child.wait();
  return text;
}

// Field `index` (1-based, as proc(5) numbers them) of a /proc/PID/stat line.
long stat_field(const std::string &stat, int index) {
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= index; ++i) rest >> field;
  return std::stol(field);
}

}  // namespace

TEST_CASE("a child gets only the descriptors it was given, on both ways in") {
  amp_test::TempDir dir("process-fds");
  const fs::path secret = dir.path() / "host-only-file";
  std::ofstream(secret) << "x";
  // Two descriptors the host forgot to mark close-on-exec: one among the low numbers a child
  // may be given, one above.
  const int low = ::open(secret.c_str(), O_RDONLY);
  const int high = ::fcntl(low, F_DUPFD, 40);
  REQUIRE(low >= 3);
  for (bool fork_path : {false, true}) {
    CAPTURE(fork_path);
    const std::string listing = output_of(shell("ls -l /proc/$$/fd", fork_path));
    CHECK(listing.find(" 0 -> /dev/null") != std::string::npos);
    CHECK(listing.find(" 2 -> /dev/null") != std::string::npos);
    CHECK(listing.find("host-only-file") == std::string::npos);
  }
  ::close(low);
  ::close(high);
}

TEST_CASE("stdin, stdout and stderr go where the spec says") {
  for (bool fork_path : {false, true}) {
    CAPTURE(fork_path);
    Spec spec = shell("read line; echo out:$line; echo err:$line >&2", fork_path);
    spec.stdin_stream = Stream::pipe();
    spec.stderr_stream = Stream::as_stdout();
    Child child = Child::spawn(spec);
    REQUIRE(::write(child.stdin_fd(), "hello\n", 6) == 6);
    child.close_stdin();
    CHECK(read_all(child.stdout_fd()) == "out:hello\nerr:hello\n");
    CHECK(child.wait() == 0);

    Spec separate = shell("echo one; echo two >&2", fork_path);
    separate.stderr_stream = Stream::pipe();
    Child apart = Child::spawn(separate);
    CHECK(read_all(apart.stdout_fd()) == "one\n");
    CHECK(read_all(apart.stderr_fd()) == "two\n");
  }
}

TEST_CASE("a descriptor of the caller's reaches the child under the number asked for") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  Spec spec = shell("echo through-three >&3");
  spec.stdout_stream = Stream::null();
  spec.extra_descriptors = {{3, fds[1]}};
  Child child = Child::spawn(spec);
  ::close(fds[1]);
  CHECK(read_all(fds[0]) == "through-three\n");
  ::close(fds[0]);

  spec.extra_descriptors = {{12, 1}};
  CHECK_THROWS_WITH_AS(Child::spawn(spec), doctest::Contains("3 to 9"), SpawnError);
}

TEST_CASE("a program or folder that is not there is a SpawnError naming it, before spawn returns") {
  for (bool fork_path : {false, true}) {
    CAPTURE(fork_path);
    Spec missing = shell("true", fork_path);
    missing.argv = {"no-such-program-anywhere"};
    CHECK_THROWS_WITH_AS(Child::spawn(missing),
                         "cannot start 'no-such-program-anywhere': command not found on PATH",
                         SpawnError);
    Spec not_executable = shell("true", fork_path);
    not_executable.argv = {"/etc/hostname"};
    CHECK_THROWS_WITH_AS(Child::spawn(not_executable),
                         doctest::Contains("cannot start '/etc/hostname'"), SpawnError);
    Spec nowhere = shell("true", fork_path);
    nowhere.working_dir = "/no/such/folder";
    CHECK_THROWS_WITH_AS(Child::spawn(nowhere),
                         doctest::Contains("in /no/such/folder: No such file or directory"),
                         SpawnError);
  }
}

TEST_CASE("signals a host ignores or blocks are the child's defaults again") {
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &before);
  sigset_t blocked, old_mask;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  ::pthread_sigmask(SIG_BLOCK, &blocked, &old_mask);
  for (bool fork_path : {false, true}) {
    CAPTURE(fork_path);
    const std::string status = output_of(shell("exec cat /proc/self/status", fork_path));
    // The standard signals (1 to 31). glibc's posix_spawn leaves its own two internal
    // real-time signals (32, 33) ignored; a glibc program reinstalls them at start.
    const std::string ignored = status.substr(status.find("SigIgn:\t") + 8, 16);
    CAPTURE(ignored);
    CHECK((std::stoull(ignored, nullptr, 16) & 0x7fffffffULL) == 0);
    CHECK(status.find("SigBlk:\t0000000000000000") != std::string::npos);
  }
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGPIPE, &before, nullptr);
}

TEST_CASE("a child leads a process group, or a session, of its own") {
  for (bool fork_path : {false, true}) {
    CAPTURE(fork_path);
    Spec spec = shell("exec cat /proc/self/stat", fork_path);
    Child grouped = Child::spawn(spec);
    const std::string stat = read_all(grouped.stdout_fd());
    CHECK(stat_field(stat, 5) == grouped.pid());  // its group
    CHECK(stat_field(stat, 6) != grouped.pid());  // not its session
    grouped.wait();

    spec.grouping = Grouping::own_session;
    Child session = Child::spawn(spec);
    const std::string session_stat = read_all(session.stdout_fd());
    CHECK(stat_field(session_stat, 5) == session.pid());
    CHECK(stat_field(session_stat, 6) == session.pid());
    session.wait();
  }
}

TEST_CASE("an address-space limit is set in the child only") {
  Spec spec = shell("ulimit -v");
  spec.address_space_limit = std::size_t{300} << 20;
  CHECK(output_of(spec) == "307200\n");
  CHECK(output_of(shell("ulimit -v")) == "unlimited\n");
}

TEST_CASE("stop ends the child and everything it left in its group") {
  Spec spec = shell("sleep 60 & echo started; wait");
  Child child = Child::spawn(spec);
  char buffer[16];
  pollfd readable{child.stdout_fd(), POLLIN, 0};
  REQUIRE(::poll(&readable, 1, 5000) == 1);
  REQUIRE(::read(child.stdout_fd(), buffer, sizeof buffer) > 0);
  const pid_t group = child.pid();
  CHECK(process_group_alive(group));
  CHECK_FALSE(child.exited());
  const int status = child.stop(400ms);
  CHECK(describe_wait_status(status) == "killed by signal 15 (SIGTERM)");
  CHECK(child.exited());
  // The backgrounded sleep got the group's SIGTERM too (its parent, gone, cannot reap it; init
  // does, a moment later).
  for (int i = 0; i < 200 && process_group_alive(group); ++i) std::this_thread::sleep_for(10ms);
  CHECK_FALSE(process_group_alive(group));
  CHECK(child.stop(400ms) == status);  // idempotent
}

TEST_CASE("how a child ended is told without reaping it, then the same once reaped") {
  Child exits = Child::spawn(shell("exit 3"));
  std::optional<std::string> reason;
  for (int i = 0; i < 500 && !(reason = exits.exit_reason()); ++i) std::this_thread::sleep_for(5ms);
  CHECK(reason == "exited with status 3");
  CHECK(describe_wait_status(exits.wait()) == "exited with status 3");
  CHECK(exits.exit_reason() == "exited with status 3");

  Child killed = Child::spawn(shell("kill -9 $$"));
  CHECK(describe_wait_status(killed.wait()) == "killed by signal 9 (SIGKILL)");
}

TEST_CASE("the environment is the host's unless given, and PATH lookup uses the child's") {
  Spec spec = shell("echo $AMP_PROCESS_TEST_VALUE");
  spec.environment = environment_with({{"AMP_PROCESS_TEST_VALUE", "given"}});
  CHECK(output_of(spec) == "given\n");
  Spec bare = shell("echo ${HOME:-none}");
  bare.environment = std::vector<std::string>{"PATH=/usr/bin:/bin"};
  CHECK(output_of(bare) == "none\n");
  CHECK(find_program("sh", "/nowhere:/bin") == fs::path("/bin/sh"));
  CHECK(find_program("sh", "/nowhere").empty());
  CHECK(find_program("./relative", "/bin") == fs::path("./relative"));
}

// The untrusted case of the program lookup: a cloned repository (or a model's write) puts an
// executable named like a tool into the folder a child starts in, and PATH has "." or a
// relative entry. Those entries are never searched; the real program in an absolute folder is.
TEST_CASE("a relative or empty PATH entry is never searched, whatever the current folder holds") {
  amp_test::TempDir dir("process-path");
  const fs::path planted = dir.path() / "bin" / "sh";
  fs::create_directories(planted.parent_path());
  std::ofstream(planted) << "#!/bin/sh\necho planted\n";
  fs::permissions(planted, fs::perms::owner_all);
  const fs::path was = fs::current_path();
  fs::current_path(dir.path());
  CHECK(find_program("sh", "bin:.:") == fs::path());
  CHECK(find_program("sh", "bin:/bin") == fs::path("/bin/sh"));
  Spec spec;
  spec.argv = {"sh", "-c", "echo real"};
  spec.environment = std::vector<std::string>{"PATH=bin:/bin"};
  spec.stdout_stream = Stream::pipe();
  CHECK(output_of(spec) == "real\n");
  fs::current_path(was);
}

TEST_CASE("run_to_end feeds the input, keeps stdout and stderr apart, and reports the exit code") {
  Spec spec;
  spec.argv = {"/bin/sh", "-c", "tr a-z A-Z; echo oops >&2; exit 3"};
  RunOptions options;
  options.input = std::string(300'000, 'x');  // larger than a pipe's buffer: written as read
  const RunOutcome outcome = run_to_end(spec, options);
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.exit_code() == 3);
  CHECK(outcome.out == std::string(300'000, 'X'));
  CHECK(outcome.err == "oops\n");
}

TEST_CASE("run_to_end: a child that reads no input is no SIGPIPE for the host, and output past the limit is cut") {
  // SIGPIPE is not ignored here: a write to the closed pipe would kill this test.
  Spec spec;
  spec.argv = {"/bin/sh", "-c", "exec 0<&-; head -c 5000 /dev/zero"};
  RunOptions options;
  options.input = std::string(1 << 20, 'x');
  options.max_output_bytes = 1000;
  const RunOutcome outcome = run_to_end(spec, options);
  CHECK(outcome.exit_code() == 0);
  CHECK(outcome.out.size() == 1000);
  CHECK(outcome.out_cut);
}

TEST_CASE("run_to_end stops a child at the timeout, and one whose background process holds its pipes") {
  Spec spec;
  spec.argv = {"/bin/sh", "-c", "echo started; sleep 30"};
  RunOptions options;
  options.timeout = 300ms;
  options.kill_grace = 200ms;
  auto started = std::chrono::steady_clock::now();
  RunOutcome outcome = run_to_end(spec, options);
  CHECK(outcome.timed_out);
  CHECK(outcome.exit_code() == -1);
  CHECK(outcome.out == "started\n");
  CHECK(std::chrono::steady_clock::now() - started < 5s);

  // The shell exits at once; its background sleep keeps stdout open. The call returns soon
  // after the exit, with the exit code, and the sleep is ended with the group.
  spec.argv = {"/bin/sh", "-c", "sleep 30 & echo $! ; exit 4"};
  options.timeout = 20s;
  started = std::chrono::steady_clock::now();
  outcome = run_to_end(spec, options);
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.exit_code() == 4);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  // Ended: gone, or a zombie until its new parent reaps it.
  const pid_t background = std::stoi(outcome.out);
  auto ended = [&] {
    std::ifstream stat("/proc/" + std::to_string(background) + "/stat");
    std::string pid_field, name, state;
    return !(stat >> pid_field >> name >> state) || state == "Z";
  };
  // SIGKILL was sent before run_to_end returned; the kernel takes a moment to carry it out.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!ended() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  CHECK(ended());
}

TEST_CASE("run_to_end ends a child at once when the caller's turn is cancelled") {
  Spec spec;
  spec.argv = {"/bin/sh", "-c", "echo waiting; sleep 30"};
  RunOptions options;
  options.timeout = 20s;
  const auto started = std::chrono::steady_clock::now();
  options.cancelled = [&] { return std::chrono::steady_clock::now() - started > 300ms; };
  const RunOutcome outcome = run_to_end(spec, options);
  CHECK(outcome.cancelled);
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.exit_code() == -1);
  CHECK(outcome.out == "waiting\n");
  CHECK(std::chrono::steady_clock::now() - started < 5s);
}
