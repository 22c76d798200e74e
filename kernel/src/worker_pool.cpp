#include "amplifier/worker_pool.hpp"

#include "amplifier/log.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
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

struct WorkerPool::State : std::enable_shared_from_this<WorkerPool::State> {
  // The pool whose worker this thread is, and whether it is in blocking work now.
  static thread_local State *current_pool;
  static thread_local bool current_blocked;

  Options options;

  mutable std::mutex mutex;
  std::condition_variable work;      // workers: a task is ready, or the earliest deadline moved
  std::condition_variable watch;     // the monitor: work is waiting with nobody idle
  std::condition_variable drained;   // the destructor: every thread has ended
  std::deque<Task> ready;
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<>> delayed;
  std::uint64_t next_order = 0;
  std::uint64_t started_tasks = 0;  // progress, as the monitor sees it
  std::size_t threads = 0;
  std::size_t idle = 0;
  std::size_t blocked = 0;  // workers in blocking work: not counted against the core
  bool monitor_running = false;
  bool stopping = false;

  // Moves every delayed task whose time has come to `ready`. Caller holds the mutex.
  void release_due(Clock::time_point now) {
    while (!delayed.empty() && delayed.top().due <= now) {
      // priority_queue::top is const; the task is moved out right before pop() drops it.
      ready.push_back(std::move(const_cast<Delayed &>(delayed.top()).task));
      delayed.pop();
    }
  }

  bool waiting_work() const { return !ready.empty() || !delayed.empty(); }

  // Caller holds the mutex.
  void start_worker(const std::shared_ptr<State> &self) {
    std::thread(&State::run_worker, self).detach();
    ++threads;
  }

  // Wakes a worker for new work, or starts one while below the core, or lets the monitor
  // decide whether the busy workers are stuck. Caller holds the mutex.
  void dispatch(const std::shared_ptr<State> &self) {
    if (idle > 0) {
      work.notify_one();
    } else if (threads - blocked < options.core_threads) {
      start_worker(self);
    } else {
      if (!monitor_running) {
        std::thread(&State::run_monitor, self).detach();
        monitor_running = true;
      }
      watch.notify_one();
    }
  }

  // The calling worker stops counting against the core; what waits gets another worker.
  void enter_blocking(const std::shared_ptr<State> &self) {
    std::lock_guard lock(mutex);
    ++blocked;
    current_blocked = true;
    if (!ready.empty()) dispatch(self);
  }

  void leave_blocking() {
    std::lock_guard lock(mutex);
    --blocked;
    current_blocked = false;
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

  static void run_worker(std::shared_ptr<State> self) {
    State &s = *self;
    current_pool = &s;
    std::unique_lock lock(s.mutex);
    for (;;) {
      s.release_due(Clock::now());
      if (!s.ready.empty()) {
        Task task = std::move(s.ready.front());
        s.ready.pop_front();
        ++s.started_tasks;
        lock.unlock();
        run_task(task);
        task = nullptr;  // whatever it captured goes before the lock is taken again
        lock.lock();
        continue;
      }
      if (s.stopping) break;
      ++s.idle;
      bool timed_out = false;
      // wait_until keeps a reference to its deadline and reads it again after waking, so it
      // gets a copy: a submit() while the lock is released may grow the queue and free the
      // element (a heap-use-after-free under ASan).
      if (!s.delayed.empty()) s.work.wait_until(lock, Clock::time_point{s.delayed.top().due});
      else timed_out = s.work.wait_for(lock, s.options.idle_timeout) == std::cv_status::timeout;
      --s.idle;
      // An idle worker beyond the core ends, unless work arrived meanwhile.
      if (timed_out && !s.waiting_work() && s.threads > s.options.core_threads) break;
    }
    --s.threads;
    s.drained.notify_all();
  }

  // Adds a worker when ready work made no progress for a whole stall threshold while every
  // worker was busy: they are blocked (or just slow), and the queue must not wait for them.
  static void run_monitor(std::shared_ptr<State> self) {
    State &s = *self;
    std::unique_lock lock(s.mutex);
    while (!s.stopping) {
      s.release_due(Clock::now());
      const bool starved = !s.ready.empty() && s.idle == 0;
      if (!starved) {
        if (!s.delayed.empty()) s.watch.wait_until(lock, Clock::time_point{s.delayed.top().due});
        else s.watch.wait(lock);
        continue;
      }
      const std::uint64_t progress = s.started_tasks;
      // The whole threshold, whatever wakes the monitor meanwhile (every submit while all are
      // busy does): a burst of quick submits is not a stall, and must not add workers.
      const auto deadline = Clock::now() + s.options.stall_threshold;
      while (!s.stopping && s.started_tasks == progress && Clock::now() < deadline)
        s.watch.wait_until(lock, deadline);
      if (!s.stopping && s.started_tasks == progress && !s.ready.empty() && s.idle == 0)
        s.start_worker(self);
    }
    s.monitor_running = false;
    s.drained.notify_all();
  }
};

thread_local WorkerPool::State *WorkerPool::State::current_pool = nullptr;
thread_local bool WorkerPool::State::current_blocked = false;

WorkerPool &WorkerPool::shared() {
  static WorkerPool *pool = new WorkerPool();  // never destroyed: see the header
  return *pool;
}

WorkerPool::WorkerPool() : WorkerPool(Options{}) {}

WorkerPool::WorkerPool(Options options) : state_(std::make_shared<State>()) {
  if (options.core_threads == 0)
    options.core_threads = std::max<std::size_t>(2, std::thread::hardware_concurrency());
  state_->options = options;
}

WorkerPool::~WorkerPool() {
  std::unique_lock lock(state_->mutex);
  state_->stopping = true;
  while (!state_->delayed.empty()) state_->delayed.pop();
  state_->work.notify_all();
  state_->watch.notify_all();
  state_->drained.wait(lock, [&] { return state_->threads == 0 && !state_->monitor_running; });
}

void WorkerPool::submit(Task task, std::chrono::milliseconds delay) {
  std::lock_guard lock(state_->mutex);
  if (delay.count() <= 0) {
    state_->ready.push_back(std::move(task));
    state_->dispatch(state_);
    return;
  }
  const auto due = Clock::now() + delay;
  const bool earliest = state_->delayed.empty() || due < state_->delayed.top().due;
  state_->delayed.push(Delayed{due, state_->next_order++, std::move(task)});
  if (!earliest) return;
  // Sleepers must re-arm for the new deadline; with nobody asleep, somebody must wake for it.
  state_->work.notify_all();
  if (state_->idle == 0) state_->dispatch(state_);
}

// Blocking work is ordinary work that runs inside a BlockingSection.
void WorkerPool::submit_blocking(Task task) {
  submit([task = std::move(task)] {
    BlockingSection blocking;
    task();
  });
}

WorkerPool::BlockingSection::BlockingSection() {
  if (!State::current_pool || State::current_blocked) return;
  state_ = State::current_pool->shared_from_this();
  state_->enter_blocking(state_);
}

WorkerPool::BlockingSection::~BlockingSection() {
  if (state_) state_->leave_blocking();
}

std::size_t WorkerPool::thread_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->threads;
}

std::size_t WorkerPool::idle_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->idle;
}

std::size_t WorkerPool::blocked_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->blocked;
}

}  // namespace amplifier
