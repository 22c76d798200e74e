// Ctrl-C for a running turn: once = graceful cancel, twice = immediate.
#pragma once
#include <functional>
#include <memory>

namespace amplifier::host {

// Blocks SIGINT/SIGTERM in every thread (call before any thread starts) and watches for them
// on a dedicated thread, which calls `on_interrupt(count)` for each one received (count: the
// SIGINTs since the start or the last reset_count(); a SIGTERM always comes as 2, immediate).
// Destroying the watcher stops the thread and restores the signal mask.
class InterruptWatcher {
 public:
  explicit InterruptWatcher(std::function<void(int count)> on_interrupt);
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher &) = delete;
  InterruptWatcher &operator=(const InterruptWatcher &) = delete;

  // Starts counting again from zero: an interactive session calls it before each turn, so the
  // first Ctrl-C of every turn is the graceful one.
  void reset_count();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace amplifier::host
