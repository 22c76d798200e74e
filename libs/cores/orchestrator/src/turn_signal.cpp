#include "amplifier/orchestrator/turn_signal.hpp"

namespace amplifier::orchestrator {
namespace {

// What a deadline needs when it fires: the signal (if it still exists) and which wait it was.
struct Expiry {
  std::weak_ptr<TurnSignal> signal;
  std::uint64_t serial;
};

}  // namespace

bool TurnSignal::park(Waiter waiter, std::optional<Clock::time_point> deadline) {
  std::lock_guard lock(mutex_);
  if (satisfied(waiter)) return false;
  const auto now = Clock::now();
  if (deadline && *deadline <= now) return false;  // result: ready() as just read
  waiter.serial = next_serial_++;
  const std::uint64_t serial = waiter.serial;
  waiter_ = std::move(waiter);
  if (!deadline) return true;

  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - now);
  auto *expiry = new Expiry{weak_from_this(), serial};
  auto fire = [](void *context) {
    std::unique_ptr<Expiry> expiry(static_cast<Expiry *>(context));
    if (auto signal = expiry->signal.lock()) signal->expire(expiry->serial);
  };
  if (!host_.submit_work(static_cast<std::uint32_t>(left.count()), fire, expiry)) {
    std::thread([fire, expiry, at = *deadline] {  // a host without a worker pool
      std::this_thread::sleep_until(at);
      fire(expiry);
    }).detach();
  }
  return true;
}

void TurnSignal::expire(std::uint64_t serial) {
  std::coroutine_handle<> wake;
  {
    std::lock_guard lock(mutex_);
    if (!waiter_ || waiter_->serial != serial) return;  // that wait already ended
    *waiter_->result = waiter_->ready();
    wake = waiter_->handle;
    waiter_.reset();
  }
  wake.resume();  // already on a worker
}

}  // namespace amplifier::orchestrator
