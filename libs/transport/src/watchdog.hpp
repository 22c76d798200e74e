// A deadline that fires a callback unless pushed back. Pushing it back (touch) only stores a
// time: the timer is re-armed lazily when it fires early, so a busy stream costs no timer
// operation per chunk.
#pragma once

#include "asio_types.hpp"

#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <memory>

namespace amplifier::transport::detail {

class Watchdog : public std::enable_shared_from_this<Watchdog> {
 public:
  using Clock = std::chrono::steady_clock;

  Watchdog(const Strand &strand, std::function<void()> on_expire);

  // Fires on_expire once `period` passes without touch(). A zero period disarms.
  void arm(std::chrono::milliseconds period);
  void touch() { deadline_ = Clock::now() + period_; }
  void disarm();

 private:
  void wait_until(Clock::time_point when);
  void on_timer(std::uint64_t generation);

  asio::steady_timer timer_;
  std::function<void()> on_expire_;
  std::chrono::milliseconds period_{0};
  Clock::time_point deadline_;
  Clock::time_point timer_expiry_;
  std::uint64_t generation_ = 0;  // identifies the current wait; stale completions are ignored
  bool armed_ = false;
  bool waiting_ = false;
};

}  // namespace amplifier::transport::detail
