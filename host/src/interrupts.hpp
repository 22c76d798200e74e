// Ctrl-C for a running turn: once = graceful cancel, twice = immediate.
#pragma once
#include <functional>
#include <memory>

namespace amplifier::host {

// Blocks SIGINT/SIGTERM in every thread (call before any thread starts) and watches for them
// on a dedicated thread, which calls `on_interrupt(count)` for each one received. Destroying
// the watcher stops the thread and restores the signal mask.
class InterruptWatcher {
 public:
  explicit InterruptWatcher(std::function<void(int count)> on_interrupt);
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher &) = delete;
  InterruptWatcher &operator=(const InterruptWatcher &) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace amplifier::host
