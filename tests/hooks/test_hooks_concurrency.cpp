// HookRegistry under concurrency: unregister waits for other threads' running handlers, and
// emits from many threads see consistent tables while handlers come and go.
#include "amplifier/hooks.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <vector>

using namespace amplifier;
namespace json = boost::json;

namespace {

// Spins (yielding) until `condition` holds: synchronisation on observable state, not on time.
template <class Condition>
void wait_for(Condition condition) {
  while (!condition()) std::this_thread::yield();
}

}  // namespace

TEST_CASE("unregister waits until another thread's running handler returns") {
  HookRegistry hooks;
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> unregister_returned{false};
  std::atomic<bool> returned_while_running{false};

  const auto id = hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    entered.set_value();
    released.wait();
    returned_while_running = unregister_returned.load();
    return HookResult{};
  });

  std::thread emitter([&] { hooks.emit("tool:pre", {}); });
  entered.get_future().wait();

  std::thread remover([&] {
    CHECK(hooks.unregister(id) == 1);
    unregister_returned = true;
  });
  // The table no longer lists the handler once the remover is past removal and waiting.
  wait_for([&] { return !hooks.has_handlers("tool:pre"); });
  CHECK_FALSE(unregister_returned.load());

  release.set_value();
  remover.join();
  emitter.join();
  CHECK(unregister_returned.load());
  CHECK_FALSE(returned_while_running.load());
}

TEST_CASE("unregister does not wait for an emit that runs other handlers") {
  HookRegistry hooks;
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    entered.set_value();
    released.wait();
    return HookResult{};
  }, 0, "slow");
  const auto idle = hooks.register_handler("tool:pre", [](std::string_view, const json::object &) {
    return HookResult{};
  }, 1, "idle");

  std::thread emitter([&] { hooks.emit("tool:pre", {}); });
  entered.get_future().wait();
  // "idle" is in the running emit's snapshot but not running: this must return at once
  // (it would deadlock the test otherwise, since the emit waits for us to release it).
  CHECK(hooks.unregister(idle) == 1);
  release.set_value();
  emitter.join();
}

TEST_CASE("unregister from inside a handler still waits for other threads") {
  HookRegistry hooks;
  std::promise<void> other_entered, release_other;
  std::shared_future<void> other_released = release_other.get_future().share();
  std::atomic<bool> remover_done{false};

  const auto blocking_id = hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    other_entered.set_value();
    other_released.wait();
    CHECK_FALSE(remover_done.load());
    return HookResult{};
  });
  hooks.register_handler("tool:post", [&](std::string_view, const json::object &) {
    // Unregisters a handler this thread is not running while another thread runs it.
    CHECK(hooks.unregister(blocking_id) == 1);
    remover_done = true;
    return HookResult{};
  });

  std::thread blocker([&] { hooks.emit("tool:pre", {}); });
  other_entered.get_future().wait();
  std::thread remover([&] { hooks.emit("tool:post", {}); });
  wait_for([&] { return !hooks.has_handlers("tool:pre"); });
  CHECK_FALSE(remover_done.load());
  release_other.set_value();
  blocker.join();
  remover.join();
  CHECK(remover_done.load());
}

TEST_CASE("emits from several threads while handlers are registered and unregistered") {
  HookRegistry hooks;
  struct State {
    std::atomic<bool> freed{false};
    std::atomic<int> calls{0};
  };
  std::atomic<bool> stop{false};
  std::atomic<int> use_after_free{0};
  std::atomic<long> emits{0};
  std::atomic<int> wrong_payloads{0};

  // A permanent handler, so emits always have work besides the churning one.
  hooks.register_handler("*", [](std::string_view, const json::object &) { return HookResult{}; }, 5);

  constexpr int kEmitters = 3;
  std::vector<std::thread> emitters;
  for (int t = 0; t < kEmitters; ++t) {
    emitters.emplace_back([&, t] {
      while (!stop.load()) {
        const HookResult result = hooks.emit(t % 2 ? "content_block:delta" : "tool:pre", {{"thread", t}});
        if (result.data.as_object().at("thread") != t) ++wrong_payloads;
        ++emits;
      }
    });
  }

  constexpr int kRounds = 300;
  std::vector<std::unique_ptr<State>> states;  // kept (marked freed) so stray reads are detectable
  for (int round = 0; round < kRounds; ++round) {
    states.push_back(std::make_unique<State>());
    State *state = states.back().get();
    const auto id = hooks.register_handler(round % 2 ? "*" : "tool:pre", [state, &use_after_free](std::string_view, const json::object &) {
      if (state->freed.load()) ++use_after_free;
      ++state->calls;
      std::this_thread::yield();  // widen the window in which unregister must wait
      if (state->freed.load()) ++use_after_free;
      return HookResult{};
    }, round % 7 - 3);
    // Let at least one emit reach the handler before it goes.
    wait_for([&] { return state->calls.load() > 0; });
    REQUIRE(hooks.unregister(id) == 1);
    state->freed = true;  // what a caller would do: free the state the handler used
  }
  stop = true;
  for (auto &thread : emitters) thread.join();

  CHECK(use_after_free.load() == 0);
  CHECK(wrong_payloads.load() == 0);
  CHECK(emits.load() > 0);
  CHECK(hooks.handler_count() == 1);
}
