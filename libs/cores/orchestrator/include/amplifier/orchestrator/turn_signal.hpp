// The one place a turn waits: for its calls to report, for cancellation, for a deadline. A
// wait is a co_await that holds no thread: the turn's coroutine is parked here and resumed on
// the host's worker pool (amp_host_api "work_submit") when what it waits for happens. Every
// change that could end a wait goes through publish() or raise(), which check the parked
// condition at once, so a cancel takes effect immediately instead of at the next poll.
#pragma once
#include "amplifier_sdk.hpp"

#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace amplifier::orchestrator {

// Resumes `handle` on one of the host's workers (a thread of its own on a host that has no
// worker pool, before ABI 1.2): never on the caller's thread, which may be a provider's I/O
// thread that must not run a turn's next steps.
inline void resume_on_worker(const amp::sdk::Host &host, std::coroutine_handle<> handle) {
  auto resume = [](void *address) { std::coroutine_handle<>::from_address(address).resume(); };
  if (host.submit_work(0, resume, handle.address())) return;
  std::thread([handle] { handle.resume(); }).detach();
}

class TurnSignal : public std::enable_shared_from_this<TurnSignal> {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TurnSignal(amp::sdk::Host host) : host_(host) {}

  // Raises the cancellation level (never lowers it) and wakes the waiter it concerns. Any
  // thread.
  void raise(amp_cancel_level level) {
    std::coroutine_handle<> wake;
    {
      std::lock_guard lock(mutex_);
      if (level <= level_) return;
      level_ = level;
      wake = take_satisfied_waiter();
    }
    if (wake) resume_on_worker(host_, wake);
  }

  amp_cancel_level level() const {
    std::lock_guard lock(mutex_);
    return level_;
  }

  // Applies `change` to state guarded by this signal's mutex, then wakes the waiter if its
  // condition now holds. Used by call sinks to record that a call finished. Any thread.
  template <class Change>
  void publish(Change &&change) {
    std::coroutine_handle<> wake;
    {
      std::lock_guard lock(mutex_);
      change();
      wake = take_satisfied_waiter();
    }
    if (wake) resume_on_worker(host_, wake);
  }

  // Reads state guarded by this signal's mutex.
  template <class Read>
  auto read(Read &&reader) const {
    std::lock_guard lock(mutex_);
    return reader();
  }

  // co_await signal.until(ready, wake_at, deadline): resumes once `ready()` holds, or the
  // cancellation level reaches `wake_at` (nullopt: never), or `deadline` passes (nullopt:
  // never). `ready` runs under the mutex, so it may read state written in publish(). The
  // await's value is ready(), as it was when the wait ended. One wait at a time per signal.
  class Wait;
  Wait until(std::function<bool()> ready, std::optional<amp_cancel_level> wake_at,
             std::optional<Clock::time_point> deadline = std::nullopt);

  // co_await signal.until_cancel(wake_at, deadline): true when the level reached `wake_at`
  // before `deadline` passed.
  Wait until_cancel(amp_cancel_level wake_at, Clock::time_point deadline);

  const amp::sdk::Host &host() const { return host_; }

 private:
  struct Waiter {
    std::function<bool()> ready;
    std::optional<amp_cancel_level> wake_at;
    std::coroutine_handle<> handle;
    bool *result;          // the Wait's value, written before it resumes
    std::uint64_t serial;  // tells a stale deadline from the current wait
  };

  // With the mutex held: true when the waiter's wait is over; its result is set.
  bool satisfied(const Waiter &waiter) const {
    *waiter.result = waiter.ready();
    return *waiter.result || (waiter.wake_at && level_ >= *waiter.wake_at);
  }
  std::coroutine_handle<> take_satisfied_waiter() {
    if (!waiter_ || !satisfied(*waiter_)) return {};
    auto handle = waiter_->handle;
    waiter_.reset();
    return handle;
  }
  // Parks a waiter, unless its wait is already over (false: do not suspend).
  bool park(Waiter waiter, std::optional<Clock::time_point> deadline);
  void expire(std::uint64_t serial);

  amp::sdk::Host host_;
  mutable std::mutex mutex_;
  amp_cancel_level level_ = AMP_CANCEL_NONE;
  std::optional<Waiter> waiter_;
  std::uint64_t next_serial_ = 1;
};

class TurnSignal::Wait {
 public:
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> handle) {
    return signal_.park(Waiter{std::move(ready_), wake_at_, handle, &result_, 0}, deadline_);
  }
  bool await_resume() const noexcept { return result_; }

 private:
  friend class TurnSignal;
  Wait(TurnSignal &signal, std::function<bool()> ready, std::optional<amp_cancel_level> wake_at,
       std::optional<Clock::time_point> deadline)
      : signal_(signal), ready_(std::move(ready)), wake_at_(wake_at), deadline_(deadline) {}

  TurnSignal &signal_;
  std::function<bool()> ready_;
  std::optional<amp_cancel_level> wake_at_;
  std::optional<Clock::time_point> deadline_;
  bool result_ = false;
};

inline TurnSignal::Wait TurnSignal::until(std::function<bool()> ready,
                                          std::optional<amp_cancel_level> wake_at,
                                          std::optional<Clock::time_point> deadline) {
  return Wait(*this, std::move(ready), wake_at, deadline);
}

inline TurnSignal::Wait TurnSignal::until_cancel(amp_cancel_level wake_at,
                                                 Clock::time_point deadline) {
  // The value is ready(): whether the level reached wake_at, read under the mutex.
  return Wait(*this, [this, wake_at] { return level_ >= wake_at; }, std::nullopt, deadline);
}

// The turns an orchestrator instance is running, by call id, so that cancel(call, level),
// which arrives on another thread, reaches the right turn; and so that the instance is never
// destroyed while a turn still runs (its coroutine would resume into freed memory).
class ActiveTurns {
 public:
  std::shared_ptr<TurnSignal> begin(const amp::sdk::Host &host, amp_call_id call) {
    auto signal = std::make_shared<TurnSignal>(host);
    std::lock_guard lock(mutex_);
    turns_[call] = signal;
    return signal;
  }
  void end(amp_call_id call) {
    std::lock_guard lock(mutex_);
    turns_.erase(call);
    ended_.notify_all();
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
  // Cancels every running turn immediately and waits until each has ended: its calls get
  // their grace and then the turn finishes on its own.
  void stop_all() {
    std::vector<std::shared_ptr<TurnSignal>> running;
    {
      std::lock_guard lock(mutex_);
      for (auto &entry : turns_) running.push_back(entry.second);
    }
    for (auto &signal : running) signal->raise(AMP_CANCEL_IMMEDIATE);
    std::unique_lock lock(mutex_);
    ended_.wait(lock, [&] { return turns_.empty(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable ended_;
  std::map<amp_call_id, std::shared_ptr<TurnSignal>> turns_;
};

}  // namespace amplifier::orchestrator
