// Helpers for the tool-mcp suites: the reference MCP server (npm's
// @modelcontextprotocol/server-everything, installed by scripts/install-test-deps.sh) over
// stdio and Streamable HTTP, plans mounting tool-mcp, tool calls through a real Session, and
// the processes on this machine (from /proc) to see that no server outlives its session.
#pragma once
#include "module_test_support.hpp"

#include "amplifier/process/child.hpp"
#include "amplifier/process/environment.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <thread>

namespace mcptest {

using namespace modtest;
using Clock = std::chrono::steady_clock;

inline fs::path source_path(const std::string &relative) {
  return fs::path(AMP_SOURCE_DIR) / relative;
}

// The reference server's entry point; a missing install fails the test, saying what to run.
inline std::string everything_js() {
  const fs::path js = source_path(
      "tests/mcp/server/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  REQUIRE_MESSAGE(fs::exists(js), "the reference MCP server is not installed ("
                                      << js.string()
                                      << " is missing): run ./scripts/install-test-deps.sh");
  return js.string();
}

inline std::string node() {
  const char *path = std::getenv("PATH");
  const fs::path found = amplifier::process::find_program("node", path ? path : "");
  REQUIRE_MESSAGE(!found.empty(), "node is not on PATH: run ./scripts/install-test-deps.sh");
  return found.string();
}

inline std::string fake_server_js() { return source_path("tests/mcp/fake_server.mjs").string(); }

// A stdio server entry running the reference server; `marker` (an argument the server
// ignores) finds its process in /proc.
inline json::object everything_stdio(const std::string &marker) {
  return {{"command", node()},
          {"args", json::array{everything_js().c_str(), "stdio", marker.c_str()}}};
}

inline json::object fake_stdio(const std::string &mode = "normal") {
  return {{"command", node()}, {"args", json::array{fake_server_js().c_str(), mode.c_str()}}};
}

// A plan mounting tool-mcp with `config`; the user's and the project's mcp.json are not read
// unless the config says so.
inline std::string plan(json::object config) {
  if (!config.contains("user_config")) config["user_config"] = false;
  if (!config.contains("project_config")) config["project_config"] = false;
  return plan_with("tools:\n  - module: tool-mcp\n    config: " + yaml_json(config) + "\n");
}

using Outcome = ToolOutcome;

inline Outcome finish(const std::shared_ptr<CallRecorder> &call, std::chrono::seconds bound = 60s) {
  return tool_outcome(call, bound);
}

inline Outcome call(amplifier::Session &session, std::string_view tool, const json::object &input) {
  return finish(run_tool(session, tool, json::serialize(input)));
}

// Starts the reference server's long-running operation through `tool`, cancels it (as a
// second Ctrl-C does) after half a second, and checks that it ended, cancelled, at once.
inline void check_cancelled_promptly(amplifier::Session &session, const std::string &tool) {
  REQUIRE(session.coordinator().tool_owner(tool) != nullptr);
  auto running = run_tool(session, tool, R"({"duration": 30, "steps": 30})");
  std::this_thread::sleep_for(500ms);
  const auto cancelled_at = Clock::now();
  REQUIRE(session.coordinator().cancel_call(running->id, amplifier::CancelLevel::Immediate));
  REQUIRE(running->wait_finished(5s));
  CHECK(Clock::now() - cancelled_at < 2s);
  CHECK(running->status == AMP_CANCELLED);
}

inline bool has_tool(amplifier::Session &session, std::string_view tool) {
  return session.coordinator().tool_owner(tool) != nullptr;
}

inline bool wait_until(const std::function<bool()> &condition, std::chrono::milliseconds bound) {
  const auto deadline = Clock::now() + bound;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// Live (not zombie) processes whose command line contains `marker`.
inline std::vector<pid_t> processes_with(const std::string &marker) {
  std::vector<pid_t> found;
  DIR *proc = ::opendir("/proc");
  REQUIRE(proc != nullptr);
  while (const dirent *entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const std::string base = std::string("/proc/") + entry->d_name;
    std::string cmdline = read_text(base + "/cmdline");
    std::string stat = read_text(base + "/stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z') continue;
    if (cmdline.find(marker) != std::string::npos && std::atoi(entry->d_name) != ::getpid())
      found.push_back(std::atoi(entry->d_name));
  }
  ::closedir(proc);
  return found;
}

inline bool gone(const std::string &marker) {
  return wait_until([&] { return processes_with(marker).empty(); }, 5000ms);
}

inline std::string unique_marker(const std::string &name) {
  static int counter = 0;
  return "mcp-test-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

inline bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

// The reference server in Streamable HTTP mode on a free loopback port, its output discarded
// (it logs every request, and a full pipe would stall it).
class HttpServer {
 public:
  explicit HttpServer(int port = free_port()) : port_(port) {
    amplifier::process::Spec spec;
    spec.argv = {"/bin/sh", "-c", "exec \"$0\" \"$1\" streamableHttp >/dev/null 2>&1", node(),
                 everything_js()};
    spec.environment = amplifier::process::environment_with({{"PORT", std::to_string(port_)}});
    spec.die_with_host = true;
    child_ = amplifier::process::Child::spawn(spec);
    REQUIRE_MESSAGE(wait_until([&] { return accepts_connections(port_); }, 20'000ms),
                    "the reference server did not listen on port " << port_);
  }
  void kill() { child_.stop(200ms); }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

 private:
  int port_;
  amplifier::process::Child child_;
};

}  // namespace mcptest
