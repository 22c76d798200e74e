#include "watchdog.hpp"

namespace amplifier::transport::detail {

Watchdog::Watchdog(const Strand &strand, std::function<void()> on_expire)
    : timer_(strand), on_expire_(std::move(on_expire)) {}

void Watchdog::arm(std::chrono::milliseconds period) {
  if (period <= std::chrono::milliseconds::zero()) {
    disarm();
    return;
  }
  period_ = period;
  deadline_ = Clock::now() + period;
  armed_ = true;
  if (!waiting_ || deadline_ < timer_expiry_) wait_until(deadline_);
}

void Watchdog::disarm() {
  armed_ = false;
  if (waiting_) {
    waiting_ = false;
    ++generation_;
    timer_.cancel();
  }
}

void Watchdog::wait_until(Clock::time_point when) {
  waiting_ = true;
  timer_expiry_ = when;
  const std::uint64_t generation = ++generation_;
  timer_.expires_at(when);  // cancels a pending wait, whose completion is then stale
  timer_.async_wait([self = shared_from_this(), generation](boost::system::error_code) {
    self->on_timer(generation);
  });
}

void Watchdog::on_timer(std::uint64_t generation) {
  if (generation != generation_) return;
  waiting_ = false;
  if (!armed_) return;
  if (Clock::now() < deadline_) {
    wait_until(deadline_);  // touched since the wait began
    return;
  }
  armed_ = false;
  on_expire_();
}

}  // namespace amplifier::transport::detail
