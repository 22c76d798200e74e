// Ctrl-C for a running turn: once = graceful cancel, twice = immediate.
#pragma once
#include <functional>
#include <memory>
#include <mutex>

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

// Where the watcher's interrupts go while a session exists. The watcher outlives the session
// (it starts first), so it must never reach a session that is gone: the handler runs under a
// lock, and clearing it (when the session ends, or is unwound by an exception) waits for a
// call in progress to return. After that no call reaches the old handler.
class InterruptRelay {
 public:
  // Calls the handler with `count` if one is set (true); false when none is.
  bool deliver(int count);
  void set(std::function<void(int count)> handler);
  void clear();

  // Sets a handler for its scope.
  class Scope {
   public:
    Scope(InterruptRelay &relay, std::function<void(int count)> handler) : relay_(relay) {
      relay_.set(std::move(handler));
    }
    ~Scope() { relay_.clear(); }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

   private:
    InterruptRelay &relay_;
  };

 private:
  std::mutex mutex_;
  std::function<void(int count)> handler_;
};

}  // namespace amplifier::host
