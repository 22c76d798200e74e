// Cooperative cancellation: none -> graceful -> immediate, never backwards.
#pragma once
#include "amplifier_plugin.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

namespace amplifier {

enum class CancelLevel { None = 0, Graceful = 1, Immediate = 2 };

class CancellationToken {
 public:
  CancelLevel level() const noexcept { return static_cast<CancelLevel>(level_.load(std::memory_order_acquire)); }
  bool is_cancelled() const noexcept { return level() != CancelLevel::None; }
  bool is_immediate() const noexcept { return level() == CancelLevel::Immediate; }

  // Raises the level (never lowers it). Returns true when the level changed; then runs the
  // listeners on the calling thread, outside the lock.
  bool request(CancelLevel level);
  // Back to None for the next turn.
  void reset() noexcept { level_.store(0, std::memory_order_release); }
  // Called with the new level every time it rises. Returns a listener id.
  std::size_t on_change(std::function<void(CancelLevel)> listener);
  void remove_listener(std::size_t id);

 private:
  std::atomic<int> level_{0};
  std::mutex mutex_;
  std::vector<std::pair<std::size_t, std::function<void(CancelLevel)>>> listeners_;
  std::size_t next_id_ = 1;
};

inline amp_cancel_level to_abi(CancelLevel l) { return static_cast<amp_cancel_level>(l); }
inline CancelLevel from_abi(amp_cancel_level l) {
  return l >= AMP_CANCEL_IMMEDIATE ? CancelLevel::Immediate
         : l == AMP_CANCEL_GRACEFUL ? CancelLevel::Graceful
                                    : CancelLevel::None;
}
const char *to_string(CancelLevel level);

}  // namespace amplifier
