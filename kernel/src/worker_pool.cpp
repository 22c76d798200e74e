#include "amplifier/worker_pool.hpp"

#include "amplifier/log.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace amplifier {
namespace {

using Clock = std::chrono::steady_clock;

struct Delayed {
  Clock::time_point due;
  std::uint64_t order;  // keeps submission order among equal deadlines
  WorkerPool::Task task;
  bool operator>(const Delayed &other) const {
    return due != other.due ? due > other.due : order > other.order;
  }
};

}  // namespace

struct WorkerPool::State {
  std::size_t core_threads;
  std::chrono::milliseconds idle_timeout;

  mutable std::mutex mutex;
  std::condition_variable wake;     // workers: a task is ready, or the earliest deadline moved
  std::condition_variable drained;  // the destructor: every worker has ended
  std::deque<Task> ready;
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<>> delayed;
  std::uint64_t next_order = 0;
  std::size_t threads = 0;
  std::size_t idle = 0;
  bool stopping = false;

  // Moves every delayed task whose time has come to `ready`. Caller holds the mutex.
  void release_due(Clock::time_point now) {
    while (!delayed.empty() && delayed.top().due <= now) {
      // priority_queue::top is const; the task is moved out right before pop() drops it.
      ready.push_back(std::move(const_cast<Delayed &>(delayed.top()).task));
      delayed.pop();
    }
  }

  // Starts a worker when work is waiting and nobody is idle to take it. Caller holds the mutex.
  void ensure_worker(const std::shared_ptr<State> &self) {
    if (stopping || idle > 0) return;
    if (ready.empty() && delayed.empty()) return;
    std::thread(&State::run, self).detach();
    ++threads;
  }

  static void run_task(Task &task) noexcept {
    try {
      task();
    } catch (const std::exception &e) {
      log(LogLevel::Error, "workers", std::string("a task failed: ") + e.what());
    } catch (...) {
      log(LogLevel::Error, "workers", "a task failed with a non-standard exception");
    }
  }

  static void run(std::shared_ptr<State> self) {
    State &s = *self;
    std::unique_lock lock(s.mutex);
    for (;;) {
      s.release_due(Clock::now());
      if (!s.ready.empty()) {
        Task task = std::move(s.ready.front());
        s.ready.pop_front();
        s.ensure_worker(self);  // more waiting (now or later) and nobody left idle: add one
        lock.unlock();
        run_task(task);
        task = nullptr;  // whatever it captured goes before the lock is taken again
        lock.lock();
        continue;
      }
      if (s.stopping) break;
      ++s.idle;
      bool timed_out = false;
      if (!s.delayed.empty()) {
        s.wake.wait_until(lock, s.delayed.top().due);
      } else {
        timed_out = s.wake.wait_for(lock, s.idle_timeout) == std::cv_status::timeout;
      }
      --s.idle;
      // An idle worker beyond the core ends, unless work arrived meanwhile.
      if (timed_out && s.ready.empty() && s.delayed.empty() && s.threads > s.core_threads) break;
    }
    --s.threads;
    s.drained.notify_all();
  }
};

WorkerPool &WorkerPool::shared() {
  static WorkerPool *pool = new WorkerPool();  // never destroyed: see the header
  return *pool;
}

WorkerPool::WorkerPool(std::size_t core_threads, std::chrono::milliseconds idle_timeout)
    : state_(std::make_shared<State>()) {
  state_->core_threads = core_threads;
  state_->idle_timeout = idle_timeout;
}

WorkerPool::~WorkerPool() {
  std::unique_lock lock(state_->mutex);
  state_->stopping = true;
  while (!state_->delayed.empty()) state_->delayed.pop();
  state_->wake.notify_all();
  state_->drained.wait(lock, [&] { return state_->threads == 0; });
}

void WorkerPool::submit(Task task, std::chrono::milliseconds delay) {
  std::lock_guard lock(state_->mutex);
  if (delay.count() <= 0) {
    state_->ready.push_back(std::move(task));
  } else {
    const bool earliest = state_->delayed.empty() || Clock::now() + delay < state_->delayed.top().due;
    state_->delayed.push(Delayed{Clock::now() + delay, state_->next_order++, std::move(task)});
    // A worker sleeping until a later deadline must re-arm for this one.
    if (earliest) {
      state_->wake.notify_all();
      state_->ensure_worker(state_);
      return;
    }
  }
  if (state_->idle > 0) state_->wake.notify_one();
  else state_->ensure_worker(state_);
}

std::size_t WorkerPool::thread_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->threads;
}

std::size_t WorkerPool::idle_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->idle;
}

}  // namespace amplifier
