// CancellationToken: levels only rise, listeners hear every rise on the requesting thread.
#include "amplifier/cancellation.hpp"
#include "amplifier/log.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace amplifier;

TEST_CASE("a fresh token is not cancelled") {
  CancellationToken token;
  CHECK(token.level() == CancelLevel::None);
  CHECK_FALSE(token.is_cancelled());
  CHECK_FALSE(token.is_immediate());
}

TEST_CASE("levels only rise") {
  CancellationToken token;
  CHECK_FALSE(token.request(CancelLevel::None));
  CHECK(token.request(CancelLevel::Graceful));
  CHECK(token.level() == CancelLevel::Graceful);
  CHECK(token.is_cancelled());
  CHECK_FALSE(token.is_immediate());
  CHECK_FALSE(token.request(CancelLevel::Graceful));
  CHECK(token.request(CancelLevel::Immediate));
  CHECK(token.is_immediate());
  CHECK_FALSE(token.request(CancelLevel::Graceful));
  CHECK_FALSE(token.request(CancelLevel::Immediate));
  CHECK(token.level() == CancelLevel::Immediate);
}

TEST_CASE("immediate can be requested directly") {
  CancellationToken token;
  CHECK(token.request(CancelLevel::Immediate));
  CHECK(token.level() == CancelLevel::Immediate);
}

TEST_CASE("reset returns to none for the next turn") {
  CancellationToken token;
  token.request(CancelLevel::Immediate);
  token.reset();
  CHECK(token.level() == CancelLevel::None);
  CHECK(token.request(CancelLevel::Graceful));
}

TEST_CASE("listeners hear every rise, with the new level, on the requesting thread") {
  CancellationToken token;
  std::vector<CancelLevel> heard;
  std::vector<std::thread::id> threads;
  token.on_change([&](CancelLevel level) {
    heard.push_back(level);
    threads.push_back(std::this_thread::get_id());
  });
  token.request(CancelLevel::Graceful);
  token.request(CancelLevel::Graceful);  // no rise, no call
  std::thread other([&] { token.request(CancelLevel::Immediate); });
  const auto other_id = other.get_id();
  other.join();
  token.request(CancelLevel::Graceful);  // lower: no call

  REQUIRE(heard == std::vector<CancelLevel>{CancelLevel::Graceful, CancelLevel::Immediate});
  CHECK(threads[0] == std::this_thread::get_id());
  CHECK(threads[1] == other_id);
}

TEST_CASE("removed listeners are not called") {
  CancellationToken token;
  int first = 0, second = 0;
  const auto id = token.on_change([&](CancelLevel) { ++first; });
  token.on_change([&](CancelLevel) { ++second; });
  token.remove_listener(id);
  token.request(CancelLevel::Graceful);
  CHECK(first == 0);
  CHECK(second == 1);
}

TEST_CASE("listeners run outside the lock: they may use the token") {
  CancellationToken token;
  int later_calls = 0;
  std::size_t self = 0;
  self = token.on_change([&](CancelLevel level) {
    CHECK(token.level() == level);
    token.remove_listener(self);                            // would deadlock under the lock
    token.on_change([&](CancelLevel) { ++later_calls; });   // ditto
    if (level == CancelLevel::Graceful) token.request(CancelLevel::Immediate);  // re-entrant rise
  });
  CHECK(token.request(CancelLevel::Graceful));
  CHECK(token.level() == CancelLevel::Immediate);
  CHECK(later_calls == 1);  // added during the graceful round, so it hears the immediate rise
}

TEST_CASE("a throwing listener is logged and does not stop the others") {
  std::vector<std::string> logged;
  set_log_sink([&](LogLevel, std::string_view, std::string_view message) { logged.emplace_back(message); });
  CancellationToken token;
  bool reached = false;
  token.on_change([](CancelLevel) { throw std::runtime_error("listener broke"); });
  token.on_change([&](CancelLevel) { reached = true; });
  CHECK_NOTHROW(token.request(CancelLevel::Graceful));
  set_log_sink(nullptr);
  CHECK(reached);
  REQUIRE(logged.size() == 1);
  CHECK(logged[0].find("listener broke") != std::string::npos);
}

TEST_CASE("concurrent requests: each rise is won by exactly one thread") {
  for (int round = 0; round < 50; ++round) {
    CancellationToken token;
    std::atomic<int> notifications{0};
    token.on_change([&](CancelLevel) { ++notifications; });
    std::atomic<int> wins{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] { wins += token.request(CancelLevel::Graceful); });
    for (auto &thread : threads) thread.join();
    CHECK(wins.load() == 1);
    CHECK(notifications.load() == 1);
    CHECK(token.level() == CancelLevel::Graceful);
  }
}

TEST_CASE("names and the C ABI mapping") {
  CHECK(std::strcmp(to_string(CancelLevel::None), "none") == 0);
  CHECK(std::strcmp(to_string(CancelLevel::Graceful), "graceful") == 0);
  CHECK(std::strcmp(to_string(CancelLevel::Immediate), "immediate") == 0);
  for (auto level : {CancelLevel::None, CancelLevel::Graceful, CancelLevel::Immediate})
    CHECK(from_abi(to_abi(level)) == level);
}
