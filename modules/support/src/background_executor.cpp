#include "amplifier/module_support/background_executor.hpp"

#include <cstdio>
#include <exception>

namespace amplifier::module_support {

std::shared_ptr<BackgroundExecutor> BackgroundExecutor::acquire() {
  static std::mutex mutex;
  static std::weak_ptr<BackgroundExecutor> current;
  std::lock_guard lock(mutex);
  if (auto live = current.lock()) return live;
  auto fresh = std::make_shared<BackgroundExecutor>();
  current = fresh;
  return fresh;
}

BackgroundExecutor::BackgroundExecutor() : state_(std::make_shared<State>()) {}

BackgroundExecutor::~BackgroundExecutor() {
  state_->keep_alive.reset();  // run() returns once the queued and pending work is done
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // see State: the thread keeps the io_context alive until it returns
  } else {
    thread_.join();
  }
}

boost::asio::io_context &BackgroundExecutor::context() {
  std::call_once(started_, [this] { thread_ = std::thread([state = state_] { run(state); }); });
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
