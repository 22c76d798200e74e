// Background threads, each running its own boost::asio::io_context, shared by every instance
// of a module library that needs timers or asynchronous I/O, so a module carries any number of
// concurrent calls without a thread per call. With one context per thread, whatever one
// client starts stays on one thread (no hand-offs between threads for a stream), while many
// clients spread over the cores.
//
// Scope: the support library is linked statically into each module library with hidden
// symbols, so "shared" means shared by the instances of ONE module library.
//
// Lifetime and threads:
//   - acquire() hands out shared ownership; the thread starts lazily on the first context()
//     call and is joined when the last owner lets go.
//   - The destructor lets the io_context run out of work (so cancelled timers still deliver
//     their operation_aborted completions) and then joins. Owners must therefore cancel their
//     own timers and I/O before letting go, and must let go on a thread of their own (a module
//     destructor runs on a host thread), never from a handler running on the executor.
//   - A module library must not be unloaded while the thread runs; joining in the destructor,
//     which runs inside the last instance's destroy, guarantees that.
#pragma once
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace amplifier::module_support {

class BackgroundExecutor {
 public:
  // The library-wide executor: the live one if any owner holds it, else a new one with
  // `threads` threads (0: one per core, at most 4).
  static std::shared_ptr<BackgroundExecutor> acquire(std::size_t threads = 1);

  explicit BackgroundExecutor(std::size_t threads = 1);
  ~BackgroundExecutor();
  BackgroundExecutor(const BackgroundExecutor &) = delete;
  BackgroundExecutor &operator=(const BackgroundExecutor &) = delete;

  // The first thread's io_context; starts the threads on first use. Thread-safe.
  boost::asio::io_context &context();
  // One of the io_contexts, in turn: for a client that keeps to it for its whole life.
  boost::asio::io_context &next_context();

  // True when called from one of the executor's threads (handlers run there).
  bool running_in_this_thread() const noexcept;

 private:
  // Heap state owned jointly by the object and its thread, so that in the one case where the
  // last owner lets go on the executor thread itself (which cannot join itself) the thread
  // can be detached and still finish with valid memory.
  struct State {
    boost::asio::io_context io;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
        keep_alive{io.get_executor()};
  };
  static void run(const std::shared_ptr<State> &state) noexcept;
  void start_threads();

  std::vector<std::shared_ptr<State>> states_;  // one io_context per thread
  std::atomic<std::size_t> next_{0};
  std::once_flag started_;
  std::vector<std::thread> threads_;
};

}  // namespace amplifier::module_support
