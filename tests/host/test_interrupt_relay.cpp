// InterruptRelay: the signal watcher reaches the session only through it, and clearing it (when
// the session goes) waits for a cancel in progress, so no cancel reaches a destroyed session.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "interrupts.hpp"

using namespace std::chrono_literals;
using amplifier::host::InterruptRelay;

namespace {
// Stands in for a Session: cancel() on a destroyed one is caught by the `alive` flag.
struct FakeSession {
  std::atomic<bool> alive{true};
  std::atomic<int> cancels{0};
  std::atomic<bool> cancel_on_destroyed{false};
  void cancel() {
    std::this_thread::sleep_for(200ms);  // a cancel that takes a while (hooks run in it)
    if (!alive.load()) cancel_on_destroyed = true;
    ++cancels;
  }
};
}  // namespace

TEST_CASE("interrupt relay: without a handler nothing is called") {
  InterruptRelay relay;
  CHECK_FALSE(relay.deliver(1));
}

TEST_CASE(
    "interrupt relay: the scope's end waits for a cancel in progress; later ones go nowhere") {
  InterruptRelay relay;
  auto session = std::make_unique<FakeSession>();
  FakeSession &observed = *session;
  std::atomic<bool> delivering{false};
  std::thread watcher;
  {
    InterruptRelay::Scope scope(relay, [&](int) {
      delivering = true;
      session->cancel();
    });
    watcher = std::thread([&] { CHECK(relay.deliver(1)); });
    while (!delivering.load()) std::this_thread::yield();
  }  // the session's turn is over: the scope ends while the cancel runs
  const bool cancel_finished = observed.cancels.load() == 1;
  CHECK(cancel_finished);
  session->alive = false;
  watcher.join();
  CHECK_FALSE(observed.cancel_on_destroyed.load());
  CHECK_FALSE(relay.deliver(2));
  CHECK(observed.cancels.load() == 1);
}
