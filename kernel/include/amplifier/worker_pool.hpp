// The process's one pool of worker threads: tool calls, orchestrator turns and the work modules
// submit through the host API (work_submit) all run here, so a thousand sessions share a
// handful of threads instead of owning some each.
//
// Work may block (a bash command, an approval prompt). The pool keeps `core_threads` workers;
// a monitor thread watches the queue, and when work has waited `stall_threshold` while no task
// could be started (every worker busy and none finished meanwhile), it adds a worker. So one
// slow task never holds up the others, and short tasks never make the pool grow. Workers
// beyond the core end after `idle_timeout` without work. Delayed tasks wait in a heap that
// idle workers (or the monitor) sleep on.
//
// Work known to block for long (a tool call: a command, a request to another server) goes
// through submit_blocking, and a worker about to wait inside a task (a context committing to
// a database) opens a BlockingSection: either way that worker does not count against the core
// while it waits, so the work queued behind it gets a worker at once instead of after a stall
// threshold (which a worker that waits a few milliseconds at a time, and so keeps making
// progress, would never trip). A thousand sessions whose tools sleep or whose messages are
// committed then never delay the others' turns.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

namespace amplifier {

class WorkerPool {
  struct State;

 public:
  using Task = std::function<void()>;

  struct Options {
    std::size_t core_threads = 0;  // 0: the machine's cores, at least 2
    std::chrono::milliseconds stall_threshold{20};
    std::chrono::milliseconds idle_timeout{10'000};
  };

  // The process-wide pool. Never destroyed (its threads may still be idle at exit).
  static WorkerPool &shared();

  WorkerPool();
  explicit WorkerPool(Options options);
  ~WorkerPool();  // waits for running and ready tasks; pending delayed tasks are dropped
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  // Runs `task` once on a worker, after `delay` (zero: as soon as possible). An exception
  // that escapes the task is logged and swallowed. Thread-safe; never runs the task inline.
  // Throws std::bad_alloc or std::system_error when no thread can be started.
  void submit(Task task, std::chrono::milliseconds delay = std::chrono::milliseconds(0));
  // Runs `task` once on a worker as soon as possible, as work that may block for long (see
  // above). Thread-safe; never runs the task inline. Throws as submit() does.
  void submit_blocking(Task task);

  std::size_t thread_count() const;  // live workers, idle ones included (not the monitor)
  std::size_t idle_count() const;
  std::size_t blocked_count() const;  // workers in blocking work (either kind)

  // While it lives, the calling worker counts as blocked (see above). Does nothing on a thread
  // that is not a worker, or inside blocking work already.
  class BlockingSection {
   public:
    BlockingSection();
    ~BlockingSection();
    BlockingSection(const BlockingSection &) = delete;
    BlockingSection &operator=(const BlockingSection &) = delete;

   private:
    std::shared_ptr<State> state_;  // null: nothing to undo
  };

 private:
  std::shared_ptr<State> state_;
};

}  // namespace amplifier
