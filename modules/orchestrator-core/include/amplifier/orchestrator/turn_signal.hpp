// The one place an orchestrator's turn thread waits: for its calls to report, and for
// cancellation. Every change that could end a wait goes through publish() or raise(), which
// wake the waiter, so a cancel takes effect at once instead of at the next poll.
#pragma once
#include "amplifier_plugin.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace amplifier::orchestrator {

class TurnSignal {
 public:
  using Clock = std::chrono::steady_clock;

  // Raises the cancellation level (never lowers it) and wakes the waiter. Any thread.
  void raise(amp_cancel_level level) {
    {
      std::lock_guard lock(mutex_);
      if (level <= level_) return;
      level_ = level;
    }
    changed_.notify_all();
  }

  amp_cancel_level level() const {
    std::lock_guard lock(mutex_);
    return level_;
  }

  // Applies `change` to state guarded by this signal's mutex, then wakes the waiter. Used by
  // call sinks to record that a call finished. Any thread.
  template <class Change>
  void publish(Change &&change) {
    {
      std::lock_guard lock(mutex_);
      change();
    }
    changed_.notify_all();
  }

  // Blocks until `ready()` holds or the cancellation level reaches `wake_at`. `ready` runs
  // under the mutex, so it may read state written in publish(). Returns ready().
  template <class Ready>
  bool wait(Ready ready, amp_cancel_level wake_at) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return ready() || level_ >= wake_at; });
    return ready();
  }

  // Blocks until `ready()` holds or `deadline` passes. Returns ready().
  template <class Ready>
  bool wait_until(Ready ready, Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, deadline, ready);
  }

  // Blocks until the cancellation level reaches `wake_at` (true) or `deadline` passes (false).
  bool wait_for_cancel_until(amp_cancel_level wake_at, Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, deadline, [&] { return level_ >= wake_at; });
  }

  // Reads state guarded by this signal's mutex.
  template <class Read>
  auto read(Read &&reader) const {
    std::lock_guard lock(mutex_);
    return reader();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  amp_cancel_level level_ = AMP_CANCEL_NONE;
};

// The turns an orchestrator instance is running, by call id, so that cancel(call, level),
// which arrives on another thread, reaches the right turn.
class ActiveTurns {
 public:
  std::shared_ptr<TurnSignal> begin(amp_call_id call) {
    auto signal = std::make_shared<TurnSignal>();
    std::lock_guard lock(mutex_);
    turns_[call] = signal;
    return signal;
  }
  void end(amp_call_id call) {
    std::lock_guard lock(mutex_);
    turns_.erase(call);
  }
  // A cancel for a turn that already ended (or never began) has nothing left to stop.
  void cancel(amp_call_id call, amp_cancel_level level) {
    std::shared_ptr<TurnSignal> signal;
    {
      std::lock_guard lock(mutex_);
      if (auto it = turns_.find(call); it != turns_.end()) signal = it->second;
    }
    if (signal) signal->raise(level);
  }

 private:
  std::mutex mutex_;
  std::map<amp_call_id, std::shared_ptr<TurnSignal>> turns_;
};

}  // namespace amplifier::orchestrator
