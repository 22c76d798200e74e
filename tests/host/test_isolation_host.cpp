// `isolation: process` through the real binary: a module's process never outlives its host,
// even a host killed with SIGKILL while the module is stuck.
#include "host_process.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

using amp_host_test::run_amplifier;
using amp_host_test::Scratch;

namespace {

// Alive and not a zombie (an orphaned zombie waits for whoever adopts it to reap it).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return false;
  return state != "Z" && state != "X";
}

}  // namespace

TEST_CASE("a module's process dies with its host, even when the host is killed") {
  Scratch s;
  const auto pid_file = s.dir / "module.pid";
  auto plan = s.write("plan.yaml", R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
hooks:
  - module: crash-hook
    isolation: process
    config: {event: "prompt:submit", fault: hang, pid_file: ")" +
                                       pid_file.string() + R"("}
)");
  auto o = s.options();
  o.env.emplace_back("AMPLIFIER_MODULE_PATH", AMP_TEST_MODULE_DIR);
  // The hook says hello when it is created; the turn then hangs in it, with no timeout.
  o.signal_marker = "hello from pid";
  o.signal_to_send = SIGKILL;
  auto r = run_amplifier({"run", "--plan", plan.string(), "hi"}, o);
  INFO(r.err);
  CHECK(r.err.find("[crash-hook [pid ") != std::string::npos);  // its stderr, under its name
  pid_t pid = 0;
  std::ifstream(pid_file) >> pid;
  REQUIRE(pid > 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (running(pid) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(running(pid));
}
