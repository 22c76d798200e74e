#include "lease_renewer.hpp"

#include <algorithm>

namespace context_postgres {

LeaseRenewer::~LeaseRenewer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaseRenewer::add(const void *key, std::chrono::milliseconds period, Renew renew) {
  {
    std::lock_guard lock(mutex_);
    leases_[key] = Entry{period, Clock::now() + period, std::move(renew)};
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  changed_.notify_all();  // the new lease may be due before the one the thread waits for
}

void LeaseRenewer::remove(const void *key) {
  std::unique_lock lock(mutex_);
  leases_.erase(key);
  changed_.wait(lock, [&] { return renewing_ != key; });
}

std::map<const void *, LeaseRenewer::Entry>::iterator LeaseRenewer::next_due(
    Clock::time_point now) {
  return std::find_if(leases_.begin(), leases_.end(),
                      [&](const auto &lease) { return lease.second.due <= now; });
}

void LeaseRenewer::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto due = next_due(Clock::now());
    if (due == leases_.end()) {
      auto earliest = std::min_element(leases_.begin(), leases_.end(), [](auto &a, auto &b) {
        return a.second.due < b.second.due;
      });
      if (earliest == leases_.end()) {
        changed_.wait(lock);
      } else {
        // A copy: wait_until reads its deadline again after waking, when remove() may have
        // erased the entry it came from.
        const Clock::time_point until = earliest->second.due;
        changed_.wait_until(lock, until);
      }
      continue;
    }
    due->second.due = Clock::now() + due->second.period;
    renewing_ = due->first;
    Renew renew = due->second.renew;
    lock.unlock();
    renew();  // a statement on the pool: never under the lock that add() and remove() take
    lock.lock();
    renewing_ = nullptr;
    changed_.notify_all();
  }
}

}  // namespace context_postgres
