#include "interrupts.hpp"

#include <atomic>
#include <csignal>
#include <ctime>
#include <thread>

#include <pthread.h>

namespace amplifier::host {

struct InterruptWatcher::Impl {
  sigset_t watched{};
  sigset_t previous{};
  std::atomic<bool> stop{false};
  std::atomic<int> count{0};
  std::thread thread;
};

InterruptWatcher::InterruptWatcher(std::function<void(int count)> on_interrupt)
    : impl_(std::make_unique<Impl>()) {
  sigemptyset(&impl_->watched);
  sigaddset(&impl_->watched, SIGINT);
  sigaddset(&impl_->watched, SIGTERM);
  // Threads started later inherit the mask, so only the watcher ever receives the signals and
  // no handler runs in async-signal context.
  pthread_sigmask(SIG_BLOCK, &impl_->watched, &impl_->previous);
  impl_->thread = std::thread([impl = impl_.get(), on_interrupt = std::move(on_interrupt)] {
    const timespec poll{0, 100'000'000};
    while (!impl->stop.load()) {
      siginfo_t info;
      int sig = sigtimedwait(&impl->watched, &info, &poll);
      if (sig == SIGTERM) impl->count = 1;  // a terminate request stops at once
      if (sig == SIGINT || sig == SIGTERM) on_interrupt(sig == SIGTERM ? 2 : ++impl->count);
    }
  });
}

void InterruptWatcher::reset_count() { impl_->count = 0; }

InterruptWatcher::~InterruptWatcher() {
  impl_->stop = true;
  if (impl_->thread.joinable()) impl_->thread.join();
  pthread_sigmask(SIG_SETMASK, &impl_->previous, nullptr);
}

}  // namespace amplifier::host
