// A handle that cancels one in-flight request or call. Cheap to copy; outliving the request is
// harmless (cancel() after completion does nothing).
#pragma once

#include <memory>

namespace amplifier::transport {

// Implemented by whatever a handle can cancel (an HTTP exchange, a retrying call).
class Cancellable {
 public:
  virtual ~Cancellable() = default;
  // Thread-safe; idempotent. The operation still completes, once, with a `cancelled` error
  // (unless it had already completed).
  virtual void cancel() = 0;
};

class CancelHandle {
 public:
  CancelHandle() = default;
  explicit CancelHandle(std::weak_ptr<Cancellable> target) : target_(std::move(target)) {}

  // Thread-safe. Closes the request's socket at once; its completion reports `cancelled`.
  void cancel() const {
    if (auto target = target_.lock()) target->cancel();
  }

 private:
  std::weak_ptr<Cancellable> target_;
};

}  // namespace amplifier::transport
