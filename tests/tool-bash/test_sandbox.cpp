// tool-bash's sandbox (bubblewrap) through a real Session, running real processes: what a
// sandboxed command may write and reach, that its process tree dies on cancellation and
// timeout, and what happens where bwrap cannot run (refused by default, or unsandboxed and
// said so everywhere). The enforcement tests need a working bwrap and skip their assertions
// with a message where it cannot run; the config and unavailable-bwrap tests always run.
#include "bash_test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>

using namespace bashtest;

namespace {

// Why the sandbox cannot run here (the module's own probe, at create), or nullopt when it can.
std::optional<std::string> sandbox_unavailable() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    BashWorkspace ws;
    auto session = open_session(ws.plan({{"sandbox", true}}));
    if (session->load_failures().empty()) return std::nullopt;
    return session->load_failures()[0].error;
  }();
  return reason;
}

// True when the sandbox runs here; otherwise the test says why it skips its assertions.
bool sandbox_runs() {
  if (auto reason = sandbox_unavailable()) {
    MESSAGE("bubblewrap cannot run here, sandbox enforcement not checked: " << *reason);
    return false;
  }
  return true;
}

// A TCP listener on 127.0.0.1 (an ephemeral port) in the test's own network namespace.
class LoopbackListener {
 public:
  LoopbackListener() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 8) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &length) == 0);
    port_ = ntohs(address.sin_port);
  }
  ~LoopbackListener() { ::close(fd_); }
  LoopbackListener(const LoopbackListener &) = delete;
  LoopbackListener &operator=(const LoopbackListener &) = delete;

  int port() const { return port_; }

  // True when a connection is waiting (or arrives within `timeout`); it is accepted and closed.
  bool accepted(std::chrono::milliseconds timeout) const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client >= 0) ::close(client);
    return client >= 0;
  }

 private:
  int fd_;
  int port_ = 0;
};

// Live processes below this test process (bwrap, its init, the shell and what it started).
std::set<long> live_descendants() {
  const auto all = processes();
  std::set<long> found{::getpid()};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &p : all)
      if (found.contains(p.parent) && p.state != 'Z' && p.state != 'X' &&
          found.insert(p.pid).second)
        grew = true;
  }
  found.erase(::getpid());
  return found;
}

// Which of `pids` are still running, waiting up to `timeout` for them to end: processes that
// left the group die with the sandbox's PID namespace, a moment after the group.
std::set<long> still_running(const std::set<long> &pids, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::set<long> running;
    for (const auto &p : processes())
      if (pids.contains(p.pid) && p.state != 'Z' && p.state != 'X') running.insert(p.pid);
    if (running.empty() || std::chrono::steady_clock::now() >= deadline) return running;
    ::poll(nullptr, 0, 20);
  }
}

// A stand-in for bwrap where user namespaces are not allowed: it says so and exits 1, like
// bwrap does, and appends a line to `calls` each time it runs.
fs::path failing_bwrap(const TempDir &dir) {
  const fs::path script = dir / "fake-bwrap";
  write_file(script,
             "#!/bin/sh\necho run >> '" + (dir / "calls").string() +
                 "'\necho 'bwrap: No permissions to create new namespace, likely because the "
                 "kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n");
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

// A directory outside /tmp (which the sandbox replaces), removed at the end.
struct BuildTreeDir {
  fs::path path = outside_tmp() / ("amp-sandbox-test-" + std::to_string(::getpid()));
  BuildTreeDir() { fs::create_directories(path); }
  // Somewhere writable that is not under /tmp (the sandbox's /tmp is private, so a path under
  // it would prove nothing): the build tree, unless it is itself under /tmp (a clone there).
  static fs::path outside_tmp() {
    for (fs::path candidate : {fs::path(AMP_BINARY_DIR), fs::path("/var/tmp")}) {
      auto where = fs::weakly_canonical(candidate).string();
      if (!where.starts_with("/tmp/") && ::access(where.c_str(), W_OK) == 0) return where;
    }
    const char *home = std::getenv("HOME");
    return home ? fs::path(home) : fs::path(AMP_BINARY_DIR);
  }
  ~BuildTreeDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string description_of(amplifier::Session &session) {
  const auto specs = session.coordinator().tool_specs();
  REQUIRE(specs.size() == 1);
  return text_of(specs[0].at("description"));
}

}  // namespace

TEST_CASE("sandboxed commands write only to the writable paths and a private /tmp") {
  if (!sandbox_runs()) return;
  BashWorkspace ws;
  fs::create_directories(ws.dir / "common");
  write_file(ws.outside / "readme.txt", "readable");
  BuildTreeDir build_dir;  // outside /tmp: bound before the sandbox's /tmp is mounted
  fs::create_directories(build_dir.path / "writable");
  const std::string private_tmp = "/tmp/amp-sandbox-private-" + std::to_string(::getpid());
  auto session = open_session(
      ws.plan({{"allowed_paths", json::array{".", ws.outside.string()}},
               {"deny", json::array{"rm *"}},
               {"sandbox",
                {{"writable_paths",
                  json::array{".", "../common", (build_dir.path / "writable").string()}}}}}));
  REQUIRE(session->load_failures().empty());

  auto made =
      bash(*session, "echo hi > made.txt && echo deeper > sub/deeper.txt && cat made.txt && pwd");
  CHECK(made.output == "hi\n" + ws.root.string() + "\nExit code: 0");
  CHECK(made.result.at("sandboxed") == true);
  CHECK(read_text(ws.root / "made.txt") == "hi\n");
  CHECK(read_text(ws.root / "sub/deeper.txt") == "deeper\n");
  // A relative writable path is taken relative to the working directory.
  CHECK(bash(*session, "echo common > ../common/s.txt").success);
  CHECK(read_text(ws.dir / "common/s.txt") == "common\n");
  CHECK(bash(*session, "echo build > " + (build_dir.path / "writable/b.txt").string()).success);
  CHECK(read_text(build_dir.path / "writable/b.txt") == "build\n");

  // An allowed (readable) directory outside the writable paths: visible, but read-only.
  auto outside = bash(*session, json::object{{"command", "cat readme.txt; echo x > new.txt"},
                                             {"working_dir", ws.outside.string()}});
  CHECK(!outside.success);
  CHECK(outside.output.starts_with("readable"));
  CHECK(outside.output.find("Read-only file system") != std::string::npos);
  CHECK(!fs::exists(ws.outside / "new.txt"));
  // Anywhere else on the filesystem is read-only too.
  auto escape = bash(*session, "echo x > " + (build_dir.path / "escape.txt").string());
  CHECK(!escape.success);
  CHECK(escape.output.find("Read-only file system") != std::string::npos);
  CHECK(!fs::exists(build_dir.path / "escape.txt"));

  // /tmp is writable, private, and fresh for every command.
  CHECK(bash(*session, "echo private > " + private_tmp + " && cat " + private_tmp).output ==
        "private\nExit code: 0");
  CHECK(!fs::exists(private_tmp));
  CHECK(bash(*session, "test -e " + private_tmp).output == "(no output)\nExit code: 1");

  // A PID namespace of its own, with its own /proc: bwrap's init is 1, the shell 2.
  CHECK(bash(*session, "echo $$; cat /proc/1/comm").output == "2\nbwrap\nExit code: 0");
  // The policy and the output cap apply as before.
  CHECK(bash(*session, "rm -rf sub").output.starts_with("Command denied by tool-bash policy"));
  CHECK(fs::exists(ws.root / "sub"));
}

// A listening Unix socket at `path`, removed at the end.
struct UnixListener {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  fs::path path;
  explicit UnixListener(fs::path where) : path(std::move(where)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd, 4) == 0);
  }
  ~UnixListener() {
    ::close(fd);
    ::unlink(path.c_str());
  }
};

// Sets an environment variable for a scope, then restores what it was.
struct ScopedVariable {
  std::string name;
  std::optional<std::string> before;
  ScopedVariable(std::string n, const std::string &value) : name(std::move(n)) {
    if (const char *old = std::getenv(name.c_str())) before = old;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedVariable() {
    if (before)
      ::setenv(name.c_str(), before->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

TEST_CASE("a sandboxed command sees no home, no sockets, no secrets, and an allow-listed env") {
  if (!sandbox_runs()) return;
  // The host user's home and runtime folder, outside /tmp (which is private anyway), with what
  // an attacker wants in them: a private key, the host's config, a session bus socket.
  BuildTreeDir host;
  const fs::path home = host.path / "home";
  const fs::path runtime = host.path / "run-user";
  fs::create_directories(home / ".ssh");
  fs::create_directories(home / ".config/amplifier");
  fs::create_directories(home / "project");
  fs::create_directories(runtime);
  write_file(home / ".ssh/id_ed25519", "PRIVATE KEY");
  write_file(home / ".config/amplifier/keys", "ANTHROPIC_API_KEY=sk-ant-s3cret");
  UnixListener bus(runtime / "bus");
  ScopedVariable home_variable("HOME", home.string());
  ScopedVariable runtime_variable("XDG_RUNTIME_DIR", runtime.string());
  ScopedVariable config_variable("XDG_CONFIG_HOME", (home / ".config").string());
  ScopedVariable dsn("AMPLIFIER_PG_DSN", "postgresql://amp:pw@db/amp");
  ScopedVariable token("github_token", "ghp_s3cret");
  ScopedVariable plain("AMP_TEST_PLAIN_SETTING", "not-listed");
  ScopedVariable shared("AMP_TEST_SHARED", "shared-value");

  // The working directory is inside the hidden home: it alone is bound back, writable.
  const std::string plan = plan_with(
      "tools:\n  - module: tool-bash\n    config: " +
      yaml_json(json::object{{"working_dir", (home / "project").string()},
                             {"kill_grace_seconds", 0.5},
                             {"sandbox", {{"environment", json::array{"AMP_TEST_SHARED"}}}}}) +
      "\n");
  auto session = open_session(plan);
  REQUIRE(session->load_failures().empty());

  auto key = bash(*session, "cat " + (home / ".ssh/id_ed25519").string());
  CHECK(!key.success);
  CHECK(key.output.find("No such file or directory") != std::string::npos);
  CHECK(bash(*session, "cat ~/.config/amplifier/keys").output.find("s3cret") == std::string::npos);
  CHECK(bash(*session, "ls -A ~").output == "project\nExit code: 0");
  CHECK(bash(*session, "test -e " + bus.path.string() + " && echo visible || echo hidden").output ==
        "hidden\nExit code: 0");
  CHECK(bash(*session, "ls -A /run | wc -l").output == "0\nExit code: 0");
  CHECK(bash(*session, "test -s /etc/shadow && echo readable || echo empty").output ==
        "empty\nExit code: 0");
  // The hidden home is read-only; the working directory inside it is writable.
  CHECK(bash(*session, "echo x > ~/planted").output.find("Read-only file system") !=
        std::string::npos);
  CHECK(!fs::exists(home / "planted"));
  CHECK(bash(*session, "echo kept > made.txt").success);
  CHECK(read_text(home / "project/made.txt") == "kept\n");

  auto env = bash(*session,
                  "echo ${AMPLIFIER_PG_DSN:-absent} ${github_token:-absent} "
                  "${AMP_TEST_PLAIN_SETTING:-absent} $AMP_TEST_SHARED; echo $HOME; "
                  "test -n \"$PATH\" && echo path");
  CHECK(env.output == "absent absent absent shared-value\n" + home.string() +
                          "\npath\nExit code: 0");

  // The operator may work in the home folder itself: it is then visible (and writable), but
  // the folders holding secrets in it still are not.
  write_file(home / ".netrc", "machine example.com password s3cret");
  auto in_home = open_session(plan_with(
      "tools:\n  - module: tool-bash\n    config: " +
      yaml_json(json::object{{"working_dir", home.string()},
                             {"kill_grace_seconds", 0.5},
                             {"sandbox", true}}) +
      "\n"));
  REQUIRE(in_home->load_failures().empty());
  CHECK(bash(*in_home, "test -d project && echo visible").output == "visible\nExit code: 0");
  CHECK(bash(*in_home, "ls -A .ssh | wc -l").output == "0\nExit code: 0");
  CHECK(bash(*in_home, "ls -A .config | wc -l").output == "0\nExit code: 0");
  CHECK(bash(*in_home, "wc -c < .netrc").output == "0\nExit code: 0");
  CHECK(bash(*in_home, "echo x > .ssh/authorized_keys").output.find("Read-only file system") !=
        std::string::npos);
  CHECK(!fs::exists(home / ".ssh/authorized_keys"));
  CHECK(bash(*in_home, "echo y > made-in-home.txt").success);
  CHECK(read_text(home / "made-in-home.txt") == "y\n");
}

TEST_CASE("a sandboxed command reaches a loopback listener only with network: true") {
  if (!sandbox_runs()) return;
  BashWorkspace ws;
  LoopbackListener listener;
  const std::string connect = "echo hi > /dev/tcp/127.0.0.1/" + std::to_string(listener.port());
  // Reachable from here: what the sandbox takes away is real.
  auto plain = open_session(ws.plan());
  CHECK(bash(*plain, connect).success);
  CHECK(listener.accepted(5s));

  auto isolated = open_session(ws.plan({{"sandbox", true}}));
  CHECK(description_of(*isolated).find("Commands run in a sandbox") != std::string::npos);
  CHECK(description_of(*isolated).find("there is no network access") != std::string::npos);
  auto refused = bash(*isolated, connect);
  CHECK(!refused.success);
  CHECK(refused.output.find("Connection refused") != std::string::npos);
  if (fs::exists("/usr/bin/curl")) {
    auto curl =
        bash(*isolated,
             "curl -sS --max-time 5 http://127.0.0.1:" + std::to_string(listener.port()) + "/");
    CHECK(!curl.success);
    CHECK(curl.output.find("onnect") !=
          std::string::npos);  // "Failed to connect" / "Couldn't connect"
  }
  CHECK(!listener.accepted(300ms));

  auto networked = open_session(ws.plan({{"sandbox", {{"network", true}}}}));
  CHECK(description_of(*networked).find("network access is allowed") != std::string::npos);
  auto reached = bash(*networked, connect);
  CHECK(reached.success);
  CHECK(reached.result.at("sandboxed") == true);
  CHECK(listener.accepted(5s));
}

TEST_CASE("an immediate cancellation kills the whole sandboxed process tree") {
  if (!sandbox_runs()) return;
  BashWorkspace ws;
  Fifo ready(ws.root / "ready");
  auto session = open_session(ws.plan({{"sandbox", true}}));
  // `setsid` leaves the process group: only the sandbox's PID namespace takes it down.
  auto call =
      run_tool(*session, "bash",
               json::serialize(json::object{
                   {"command", "sleep 300 & setsid sleep 301 & echo ready > ready; sleep 302"}}));
  CHECK(ready.read_line() == "ready");
  const std::set<long> tree = live_descendants();
  CHECK(tree.size() >= 5);  // bwrap, its init, bash, three sleeps
  const auto cancelled_at = std::chrono::steady_clock::now();
  REQUIRE(session->coordinator().cancel_call(call->id, amplifier::CancelLevel::Immediate));
  auto outcome = finish(call);
  CHECK(std::chrono::steady_clock::now() - cancelled_at < 10s);
  CHECK(outcome.status == AMP_CANCELLED);
  CHECK(text_of(outcome.result.at("message"))
            .starts_with("bash cancelled: the command and its process group were killed."));
  CHECK(still_running(tree).empty());
  CHECK(zombie_children_of_this_process() == 0);
}

TEST_CASE("a timeout and the end of a sandboxed command end everything it started") {
  if (!sandbox_runs()) return;
  BashWorkspace ws;
  auto session = open_session(ws.plan({{"sandbox", true}}));
  Fifo ready(ws.root / "ready");
  std::set<long> tree;
  auto call =
      run_tool(*session, "bash",
               json::serialize(json::object{
                   {"command", "sleep 300 & setsid sleep 301 & echo ready > ready; sleep 302"},
                   {"timeout_seconds", 2}}));
  CHECK(ready.read_line() == "ready");
  tree = live_descendants();
  auto timed_out = finish(call);
  CHECK(timed_out.result.at("timed_out") == true);
  CHECK(timed_out.output.find("Timed out after 2 s") != std::string::npos);
  CHECK(still_running(tree).empty());

  call = run_tool(*session, "bash",
                  json::serialize(json::object{
                      {"command", "sleep 300 & setsid sleep 301 & echo ready > ready"}}));
  CHECK(ready.read_line() == "ready");
  tree = live_descendants();
  auto done = finish(call);
  CHECK(done.success);
  CHECK(still_running(tree).empty());
  CHECK(zombie_children_of_this_process() == 0);
}

TEST_CASE("a sandbox that cannot run refuses the tool by default, saying why") {
  BashWorkspace ws;
  const fs::path fake = failing_bwrap(ws.dir);
  auto session = open_session(ws.plan({{"sandbox", {{"bwrap_path", fake.string()}}}}));
  REQUIRE(session->load_failures().size() == 1);
  const std::string error = session->load_failures()[0].error;
  CHECK(error.find("tool-bash sandbox: cannot run here: " + fake.string() +
                   " failed with exit code 1: bwrap: No "
                   "permissions to create new namespace") != std::string::npos);
  CHECK(error.find("Commands are refused (sandbox.unavailable: refuse)") != std::string::npos);
  CHECK(session->coordinator().tool_specs().empty());

  auto missing =
      open_session(ws.plan({{"sandbox", {{"bwrap_path", (ws.dir / "no-bwrap").string()}}}}));
  REQUIRE(missing->load_failures().size() == 1);
  CHECK(missing->load_failures()[0].error.find("cannot start '" + (ws.dir / "no-bwrap").string() + "'") !=
        std::string::npos);
  CHECK(missing->load_failures()[0].error.find(
            "No such file or directory (is bubblewrap installed?") != std::string::npos);
}

TEST_CASE(
    "unavailable: unsandboxed runs commands unsandboxed, warned once and recorded in every "
    "result") {
  BashWorkspace ws;
  const fs::path fake = failing_bwrap(ws.dir);
  LogCapture log;
  auto session = open_session(
      ws.plan({{"sandbox", {{"bwrap_path", fake.string()}, {"unavailable", "unsandboxed"}}}}));
  REQUIRE(session->load_failures().empty());
  CHECK(description_of(*session).find("The configured sandbox cannot run here (" + fake.string() +
                                      " failed with exit code 1: bwrap: No permissions") !=
        std::string::npos);
  CHECK(description_of(*session).ends_with("): commands run unsandboxed."));

  for (int i = 0; i < 2; ++i) {
    // Really unsandboxed: a write outside the working directory succeeds.
    auto ran = bash(*session, "echo $PPID > '" + (ws.outside / "written").string() + "'");
    CHECK(ran.success);
    CHECK(ran.result.at("sandboxed") == false);
    CHECK(text_of(ran.result.at("sandbox_unavailable"))
              .find("No permissions to create new namespace") != std::string::npos);
  }
  CHECK(fs::exists(ws.outside / "written"));
  CHECK(log.containing("tool-bash sandbox: cannot run here: " + fake.string()).size() == 1);
  CHECK(log.containing("Commands run UNSANDBOXED (sandbox.unavailable: unsandboxed)").size() == 1);
  CHECK(read_lines(ws.dir / "calls").size() == 1);  // probed once, at create
}

TEST_CASE("the sandbox config is checked, with errors naming the key") {
  BashWorkspace ws;
  auto load_error = [&](json::value sandbox) {
    auto session = open_session(ws.plan({{"sandbox", sandbox}}));
    REQUIRE(session->load_failures().size() == 1);
    return session->load_failures()[0].error;
  };
  CHECK(load_error(json::object{{"writable_paths", json::array{".", "missing"}}})
            .find("tool-bash config: 'sandbox' lists the writable path 'missing', which does not "
                  "exist (" +
                  (ws.root / "missing").string() + ")") != std::string::npos);
  CHECK(load_error(json::object{{"unavailable", "maybe"}})
            .find("tool-bash config: sandbox: 'unavailable' must be 'refuse' or 'unsandboxed', got "
                  "'maybe'") != std::string::npos);
  CHECK(load_error(5).find("tool-bash config: 'sandbox' must be true, false or an object") !=
        std::string::npos);
  CHECK(load_error(json::object{{"network", "no"}}).find("tool-bash config: sandbox: 'network'") !=
        std::string::npos);
  CHECK(load_error(json::object{{"bwrap_path", ""}})
            .find("tool-bash config: sandbox: 'bwrap_path' is empty") != std::string::npos);
  CHECK(load_error(json::object{{"environment", json::array{"A=B"}}})
            .find("tool-bash config: sandbox: 'environment' lists 'A=B', which is not a variable "
                  "name") != std::string::npos);

  // A disabled sandbox loads with paths that do not exist, warns about unknown keys, and its
  // results say the commands ran unsandboxed without claiming anything is wrong.
  LogCapture log;
  auto disabled = open_session(ws.plan(
      {{"sandbox",
        {{"enabled", false}, {"writable_paths", json::array{"missing"}}, {"netwrok", true}}}}));
  REQUIRE(disabled->load_failures().empty());
  CHECK(log.containing("tool-bash config: sandbox: unknown key 'netwrok' is ignored (did you mean "
                       "'network'?)")
            .size() == 1);
  auto ran = bash(*disabled, "true");
  CHECK(ran.result.at("sandboxed") == false);
  CHECK(!ran.result.contains("sandbox_unavailable"));
  CHECK(description_of(*disabled).find("sandbox") == std::string::npos);
}
