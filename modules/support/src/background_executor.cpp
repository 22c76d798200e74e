#include "amplifier/module_support/background_executor.hpp"

#include <cstdio>
#include <algorithm>
#include <exception>

namespace amplifier::module_support {

std::shared_ptr<BackgroundExecutor> BackgroundExecutor::acquire(std::size_t threads) {
  static std::mutex mutex;
  static std::weak_ptr<BackgroundExecutor> current;
  std::lock_guard lock(mutex);
  if (auto live = current.lock()) return live;
  auto fresh = std::make_shared<BackgroundExecutor>(threads);
  current = fresh;
  return fresh;
}

BackgroundExecutor::BackgroundExecutor(std::size_t threads)
    : state_(std::make_shared<State>()),
      thread_count_(threads != 0 ? threads
                                 : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4)) {}

BackgroundExecutor::~BackgroundExecutor() {
  state_->keep_alive.reset();  // run() returns once the queued and pending work is done
  for (std::thread &thread : threads_) {
    if (thread.get_id() == std::this_thread::get_id()) {
      thread.detach();  // see State: the thread keeps the io_context alive until it returns
    } else {
      thread.join();
    }
  }
}

boost::asio::io_context &BackgroundExecutor::context() {
  std::call_once(started_, [this] {
    for (std::size_t i = 0; i < thread_count_; ++i)
      threads_.emplace_back([state = state_] { run(state); });
  });
  return state_->io;
}

bool BackgroundExecutor::running_in_this_thread() const noexcept {
  return state_->io.get_executor().running_in_this_thread();
}

void BackgroundExecutor::run(const std::shared_ptr<State> &state) noexcept {
  // A handler that throws must not end the thread: every other owner's work would stall.
  // Handlers are expected to catch their own errors; this is the last line of defence.
  for (;;) {
    try {
      state->io.run();
      return;
    } catch (const std::exception &e) {
      std::fprintf(stderr, "amplifier background executor: a handler threw: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "amplifier background executor: a handler threw\n");
    }
  }
}

}  // namespace amplifier::module_support
