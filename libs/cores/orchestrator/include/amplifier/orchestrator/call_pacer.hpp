// Spacing between provider calls (loop-streaming's min_delay_between_calls_ms): some
// providers throttle bursts, and a loop of fast tool calls produces exactly that.
#pragma once
#include "amplifier/orchestrator/task.hpp"
#include "amplifier/orchestrator/turn_signal.hpp"

#include <chrono>
#include <mutex>
#include <optional>

namespace amplifier::orchestrator {

// One per orchestrator instance, so the spacing also holds from one turn to the next.
class CallPacer {
 public:
  using Clock = TurnSignal::Clock;

  explicit CallPacer(std::chrono::milliseconds min_delay) : min_delay_(min_delay) {}

  // Waits (holding no thread) until `min_delay` has passed since the previous call started,
  // then records now as the start of the next one. Completes with false, without recording,
  // when a graceful (or stronger) cancel comes first: the call must not start. Turns run one
  // at a time per session, so the wait happens outside the mutex.
  Task<bool> wait_turn(TurnSignal &signal) {
    if (min_delay_.count() > 0) {
      if (auto previous = last_start(); previous && *previous + min_delay_ > Clock::now() &&
          co_await signal.until_cancel(AMP_CANCEL_GRACEFUL, *previous + min_delay_))
        co_return false;
      if (signal.level() >= AMP_CANCEL_GRACEFUL) co_return false;
    }
    std::lock_guard lock(mutex_);
    last_start_ = Clock::now();
    co_return true;
  }

 private:
  std::optional<Clock::time_point> last_start() {
    std::lock_guard lock(mutex_);
    return last_start_;
  }

  const std::chrono::milliseconds min_delay_;
  std::mutex mutex_;
  std::optional<Clock::time_point> last_start_;
};

}  // namespace amplifier::orchestrator
