#include "amplifier/module_support/background_executor.hpp"

#include <algorithm>
#include <cstdio>
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

BackgroundExecutor::BackgroundExecutor(std::size_t threads) {
  const std::size_t count =
      threads != 0 ? threads : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
  for (std::size_t i = 0; i < count; ++i) states_.push_back(std::make_shared<State>());
}

BackgroundExecutor::~BackgroundExecutor() {
  for (auto &state : states_) state->keep_alive.reset();  // run() returns once work is done
  for (std::thread &thread : threads_) {
    if (thread.get_id() == std::this_thread::get_id()) {
      thread.detach();  // see State: the thread keeps the io_context alive until it returns
    } else {
      thread.join();
    }
  }
}

void BackgroundExecutor::start_threads() {
  std::call_once(started_, [this] {
    for (const auto &state : states_) threads_.emplace_back([state] { run(state); });
  });
}

boost::asio::io_context &BackgroundExecutor::context() {
  start_threads();
  return states_.front()->io;
}

boost::asio::io_context &BackgroundExecutor::next_context() {
  start_threads();
  return states_[next_.fetch_add(1, std::memory_order_relaxed) % states_.size()]->io;
}

bool BackgroundExecutor::running_in_this_thread() const noexcept {
  return std::any_of(states_.begin(), states_.end(), [](const std::shared_ptr<State> &state) {
    return state->io.get_executor().running_in_this_thread();
  });
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
