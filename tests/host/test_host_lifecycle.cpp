// Process tests of how `amplifier run` ends: at once when its work is done, and on SIGINT and
// SIGTERM as a user or a supervisor expects.
#include "host_process.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using amp_host_test::run_amplifier;
using amp_host_test::Scratch;
using Clock = std::chrono::steady_clock;

namespace {

// A plan whose first response streams 4 characters every 100 ms (about 1.3 s in all) and then
// asks for a tool: long enough to be interrupted in the middle.
const char *kSlowPlan = R"(session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-mock
    config:
      chunk_size: 4
      delay_ms: 100
      responses:
        - text: "a slow answer that keeps streaming: END-OF-ANSWER"
          tool_calls:
            - {id: call_1, name: read_file, input: {path: "x"}}
        - text: "after the tool"
tools: [{module: tool-filesystem}]
)";

}  // namespace

TEST_CASE("amplifier run exits as soon as its work is done") {
  // The offline plan's work takes about 10 ms. An exit that waits for a background thread's
  // next timer tick (the interrupt watcher used to poll every 100 ms) adds close to 100 ms.
  // The machine is shared, so the run is compared with `amplifier --version` (the same
  // process start and exit, no work) measured alternately in the same loop, not with a
  // fixed time.
  Scratch s;
  std::vector<Clock::duration> runs, baselines;
  auto timed = [&](const std::vector<std::string> &args) {
    const auto start = Clock::now();
    auto r = run_amplifier(args, s.options());
    const auto wall = Clock::now() - start;
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return wall;
  };
  for (int i = 0; i < 7; ++i) {
    baselines.push_back(timed({"--version"}));
    runs.push_back(timed({"run", "hello"}));
  }
  auto median = [](std::vector<Clock::duration> walls) {
    std::sort(walls.begin(), walls.end());
    return std::chrono::duration_cast<std::chrono::milliseconds>(walls[walls.size() / 2]);
  };
  MESSAGE("median of 7: run " << median(runs).count() << " ms, --version "
                              << median(baselines).count() << " ms");
#ifdef AMP_SANITIZER_BUILD
  // Sanitized, the same work takes 45-70 ms more than --version (the ASan stage, 2 cores):
  // no bound tells that from the 100 ms stall, so the runs only check that each exits cleanly.
  MESSAGE("the exit latency is checked in the normal build only");
#else
  CHECK(median(runs) - median(baselines) < 60ms);
#endif
}

TEST_CASE("SIGTERM stops a running turn at once and exits 130") {
  Scratch s;
  auto plan = s.write("plan.yaml", kSlowPlan);
  auto o = s.options();
  o.signal_marker = "content_block:delta";
  o.signal_to_send = SIGTERM;
  auto r = run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, o);
  INFO(r.err);
  CHECK(r.exit_code == 130);
  CHECK(r.err.find("the turn was cancelled") != std::string::npos);
  CHECK(r.out.find("END-OF-ANSWER") == std::string::npos);  // the stream was cut short
  CHECK(r.out.find("\"tool:pre\"") == std::string::npos);
  CHECK(r.signal_to_exit < 800ms);  // not the 1.3 s the stream would take
}

TEST_CASE("one SIGINT lets the running step finish, starts nothing new, and exits 130") {
  Scratch s;
  auto plan = s.write("plan.yaml", kSlowPlan);
  auto o = s.options();
  o.signal_marker = "content_block:delta";
  o.signal_to_send = SIGINT;
  auto r = run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, o);
  INFO(r.err);
  CHECK(r.exit_code == 130);
  CHECK(r.err.find("cancelling after the running step") != std::string::npos);
  CHECK(r.out.find("END-OF-ANSWER") != std::string::npos);  // the provider call finished
  CHECK(r.out.find("\"tool:pre\"") == std::string::npos);   // the tool never started
  CHECK(r.out.find("after the tool") == std::string::npos);
}
