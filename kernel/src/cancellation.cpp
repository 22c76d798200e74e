// Cooperative cancellation: the level only rises; listeners learn of every rise.
#include "amplifier/cancellation.hpp"

#include "amplifier/log.hpp"

#include <exception>
#include <string>

namespace amplifier {

bool CancellationToken::request(CancelLevel level) {
  const int wanted = static_cast<int>(level);
  int current = level_.load(std::memory_order_acquire);
  // Raise only: a graceful request after an immediate one must not weaken it.
  do {
    if (wanted <= current) return false;
  } while (!level_.compare_exchange_weak(current, wanted, std::memory_order_acq_rel,
                                         std::memory_order_acquire));

  // Copy, then call outside the lock: a listener may register, remove or request again.
  std::vector<std::function<void(CancelLevel)>> to_notify;
  {
    std::lock_guard lock(mutex_);
    to_notify.reserve(listeners_.size());
    for (const auto &[id, listener] : listeners_) to_notify.push_back(listener);
  }
  for (const auto &listener : to_notify) {
    // One failing listener must not keep the cancellation from reaching the others.
    try {
      listener(level);
    } catch (const std::exception &e) {
      log(LogLevel::Error, "cancellation", std::string("listener failed: ") + e.what());
    } catch (...) {
      log(LogLevel::Error, "cancellation", "listener failed with a non-standard exception");
    }
  }
  return true;
}

std::size_t CancellationToken::on_change(std::function<void(CancelLevel)> listener) {
  std::lock_guard lock(mutex_);
  const std::size_t id = next_id_++;
  listeners_.emplace_back(id, std::move(listener));
  return id;
}

void CancellationToken::remove_listener(std::size_t id) {
  std::lock_guard lock(mutex_);
  std::erase_if(listeners_, [id](const auto &entry) { return entry.first == id; });
}

const char *to_string(CancelLevel level) {
  switch (level) {
    case CancelLevel::None: return "none";
    case CancelLevel::Graceful: return "graceful";
    case CancelLevel::Immediate: return "immediate";
  }
  return "unknown";
}

}  // namespace amplifier
