// Ending a session right after tool calls finished. A tool may call call_finish inside its
// execute (the ABI allows it; tool-c-echo does), so when the caller sees the result the
// kernel's worker thread may still be returning through the module's code. Unmounting must
// not unload the library under that thread.
//
// Built into test_c_tool, not test_abi: when this fails it crashes the process.
#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"

#include <doctest/doctest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

using namespace amp_test;

namespace {

// Starts `calls` c_upper calls at once and waits until every one has reported its end.
void run_concurrent_calls(amplifier::Session &session, int calls) {
  auto &coordinator = session.coordinator();
  amplifier::MountedModule *owner = coordinator.tool_owner("c_upper");
  REQUIRE(owner);
  struct Tally {
    std::mutex mutex;
    std::condition_variable done;
    int finished = 0;
    int succeeded = 0;
  };
  auto tally = std::make_shared<Tally>();
  for (int i = 0; i < calls; ++i) {
    amplifier::CallObserver observer;
    observer.on_finish = [tally](amp_call_id, amp_status status, std::string_view) {
      std::lock_guard lock(tally->mutex);
      ++tally->finished;
      tally->succeeded += status == AMP_OK;
      tally->done.notify_all();
    };
    coordinator.start_tool_call(*owner, "c_upper", R"({"text":"race"})", std::move(observer));
  }
  std::unique_lock lock(tally->mutex);
  REQUIRE(tally->done.wait_for(lock, kPatience, [&] { return tally->finished == calls; }));
  CHECK(tally->succeeded == calls);
}

}  // namespace

TEST_CASE("a session can be torn down right after synchronous tool calls finished") {
  // The window is a few instructions wide per call: many rounds of several calls each.
  constexpr int kRounds = 100;
  constexpr int kCallsPerRound = 8;
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
tools:
  - module: tool-c-echo
)");
    session->initialize();
    run_concurrent_calls(*session, kCallsPerRound);
    session.reset();  // unmounts at once, while workers may still be inside tool-c-echo
  }
}

TEST_CASE("unmounting waits for a channel contributor of the module that is running") {
  // The contributor takes 300 ms; the session is torn down 100 ms into it. The module must not
  // be destroyed under it: it reports "alive".
  auto session = make_session(R"(
session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-mock
hooks:
  - module: hooks-test-slow-contributor
)");
  session->initialize();
  REQUIRE(session->load_failures().empty());
  boost::json::array collected;
  std::thread collector([&] { collected = session->coordinator().collect("test.slow"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  session->cleanup();
  collector.join();
  REQUIRE(collected.size() == 1);
  CHECK(collected[0].at("value") == "alive");
}

TEST_CASE("unmounting a module ends the calls it started while its library is still loaded") {
  // The hook starts a 50 ms completion on prompt:submit and never waits for it. Unmounting it
  // right after the turn must end that call (cancel, then wait) before the hook is destroyed:
  // otherwise the call's end runs the hook's sink in an unloaded library (a crash).
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
  - module: bad-ignores-endpoint
hooks:
  - module: hooks-test-starter
    config: {provider: bad-ignores-endpoint}
)");
  EventLog events(session->hooks());
  session->initialize();
  CHECK(session->execute("hi").status == "success");
  CHECK(events.count("test:started_call_finished") == 0);  // still running
  session->cleanup();
  CHECK(events.count("test:started_call_finished") == 1);  // ended before the hook went
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past the provider's 50 ms
}
