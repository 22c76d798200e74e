// The process's one pool of worker threads: tool calls, orchestrator turns and the work modules
// submit through the host API (work_submit) all run here, so a thousand sessions share a
// handful of threads instead of owning some each.
//
// Work may block (a bash command, an approval prompt): when a task is queued and no worker is
// idle, the pool starts another thread, so one slow task never holds up the others. Workers
// that stay idle for a while end, down to a small core, so a burst of blocking work does not
// leave threads behind. Delayed tasks wait in a heap that idle workers sleep on; no timer
// thread.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

namespace amplifier {

class WorkerPool {
 public:
  using Task = std::function<void()>;

  // The process-wide pool. Never destroyed (its threads may still be idle at exit).
  static WorkerPool &shared();

  explicit WorkerPool(std::size_t core_threads = 2,
                      std::chrono::milliseconds idle_timeout = std::chrono::seconds(10));
  ~WorkerPool();  // waits for running and due tasks; pending delayed tasks are dropped
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  // Runs `task` once on a worker, after `delay` (zero: as soon as possible). An exception
  // that escapes the task is logged and swallowed. Thread-safe; never runs the task inline.
  // Throws std::bad_alloc or std::system_error when no thread can be started.
  void submit(Task task, std::chrono::milliseconds delay = std::chrono::milliseconds(0));

  std::size_t thread_count() const;  // live workers, idle ones included
  std::size_t idle_count() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace amplifier
