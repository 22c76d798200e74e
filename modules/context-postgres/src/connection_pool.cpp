#include "connection_pool.hpp"

#include <algorithm>

namespace context_postgres {

ConnectionPool::ConnectionPool(ConnectSettings settings, std::size_t size, RetryPolicy retry)
    : settings_(std::move(settings)),
      retry_(retry),
      connections_(std::max<std::size_t>(size, 1)),
      in_use_(connections_.size(), false) {}

ConnectionPool::Handle::~Handle() {
  if (pool_) pool_->release(slot_);
}

PgConnection &ConnectionPool::Handle::operator*() const { return *pool_->connections_[slot_]; }

ConnectionPool::Handle ConnectionPool::acquire() {
  std::size_t slot = 0;
  {
    std::unique_lock lock(mutex_);
    auto free_slot = [&] { return std::find(in_use_.begin(), in_use_.end(), false); };
    freed_.wait(lock, [&] { return free_slot() != in_use_.end(); });
    slot = static_cast<std::size_t>(free_slot() - in_use_.begin());
    in_use_[slot] = true;
  }
  Handle handle(*this, slot);  // gives the slot back if opening fails
  // Opened outside the lock: a slow connect must not hold up the connections already open.
  if (!connections_[slot]) connections_[slot] = PgConnection::open(settings_);
  return handle;
}

void ConnectionPool::release(std::size_t slot) {
  std::lock_guard lock(mutex_);
  // A connection the server dropped is of no further use: the slot reconnects next time.
  if (connections_[slot] && !connections_[slot]->healthy()) connections_[slot].reset();
  in_use_[slot] = false;
  freed_.notify_one();
}

std::chrono::milliseconds ConnectionPool::pause_before(int attempt) const {
  auto pause = retry_.backoff;
  for (int i = 2; i < attempt && pause < kMaxBackoff; ++i) pause *= 2;
  return std::min(pause, kMaxBackoff);
}

DatabaseError ConnectionPool::gave_up(std::string_view doing, int attempts,
                                      const DatabaseError &last) {
  return DatabaseError(last.kind(),
                       std::string(doing) + " failed (" + std::to_string(attempts) +
                           (attempts == 1 ? " attempt" : " attempts") + "): " + last.detail(),
                       last.sqlstate());
}

}  // namespace context_postgres
