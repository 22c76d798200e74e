#include "interrupts.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <csignal>
#include <thread>

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace amplifier::host {

// The watcher sleeps in poll(2) on two descriptors: a signalfd for SIGINT/SIGTERM and an
// eventfd the destructor writes to. Nothing wakes it on a timer, so it costs nothing while
// idle and the process exits the moment its work is done (a timed poll used to hold every
// exit back until the next tick).
struct InterruptWatcher::Impl {
  sigset_t watched{};
  sigset_t previous{};
  int signal_fd = -1;
  int wake_fd = -1;
  std::atomic<int> count{0};
  std::thread thread;
};

namespace {

// Reads one pending signal; 0 when none was there (another wake-up, or EINTR).
int read_signal(int signal_fd) {
  signalfd_siginfo info{};
  if (::read(signal_fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return 0;
  return static_cast<int>(info.ssi_signo);
}

}  // namespace

InterruptWatcher::InterruptWatcher(std::function<void(int count)> on_interrupt)
    : impl_(std::make_unique<Impl>()) {
  sigemptyset(&impl_->watched);
  sigaddset(&impl_->watched, SIGINT);
  sigaddset(&impl_->watched, SIGTERM);
  // Threads started later inherit the mask, so the signals only ever reach the signalfd and no
  // handler runs in async-signal context.
  pthread_sigmask(SIG_BLOCK, &impl_->watched, &impl_->previous);
  impl_->signal_fd = ::signalfd(-1, &impl_->watched, SFD_CLOEXEC);
  impl_->wake_fd = ::eventfd(0, EFD_CLOEXEC);
  if (impl_->signal_fd < 0 || impl_->wake_fd < 0) {
    // Without the descriptors nobody could read the signals: give them back their defaults.
    pthread_sigmask(SIG_SETMASK, &impl_->previous, nullptr);
    return;
  }
  impl_->thread = std::thread([impl = impl_.get(), on_interrupt = std::move(on_interrupt)] {
    for (;;) {
      pollfd fds[2] = {{impl->signal_fd, POLLIN, 0}, {impl->wake_fd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;  // the destructor asked us to stop
      const int sig = read_signal(impl->signal_fd);
      if (sig == SIGTERM) {
        impl->count = 1;  // a terminate request stops at once
        on_interrupt(2);
      } else if (sig == SIGINT) {
        on_interrupt(++impl->count);
      }
    }
  });
}

void InterruptWatcher::reset_count() { impl_->count = 0; }

InterruptWatcher::~InterruptWatcher() {
  if (impl_->thread.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(impl_->wake_fd, &one, sizeof one);
    impl_->thread.join();
  }
  if (impl_->signal_fd >= 0) ::close(impl_->signal_fd);
  if (impl_->wake_fd >= 0) ::close(impl_->wake_fd);
  pthread_sigmask(SIG_SETMASK, &impl_->previous, nullptr);
}

bool InterruptRelay::deliver(int count) {
  std::lock_guard lock(mutex_);
  if (!handler_) return false;
  handler_(count);
  return true;
}

void InterruptRelay::set(std::function<void(int count)> handler) {
  std::lock_guard lock(mutex_);
  handler_ = std::move(handler);
}

void InterruptRelay::clear() {
  std::lock_guard lock(mutex_);  // waits for a delivery in progress
  handler_ = nullptr;
}

}  // namespace amplifier::host
