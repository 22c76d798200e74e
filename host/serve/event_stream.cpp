#include "event_stream.hpp"

namespace amplifier::host::serve {

std::shared_ptr<const std::function<void()>> EventStream::wake_once() {
  if (woken_ || !wake_) return nullptr;
  woken_ = true;
  return wake_;
}

void EventStream::push(std::string frame) {
  std::shared_ptr<const std::function<void()>> wake;
  {
    std::lock_guard lock(mutex_);
    if (finished_ || abandoned_) return;
    if (parked_ && direct_) {
      if (direct_(frame) == DirectWrite::Sent) return;
      // else the consumer finishes what the writer kept, or ends the response
    } else if (pending_.empty()) {
      pending_ = std::move(frame);
    } else {
      pending_ += frame;
    }
    parked_ = false;
    wake = wake_once();
  }
  if (wake) (*wake)();
}

void EventStream::finish() {
  std::shared_ptr<const std::function<void()>> wake;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    parked_ = false;
    wake = wake_once();
  }
  if (wake) (*wake)();
}

void EventStream::set_waker(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wake_ = std::make_shared<const std::function<void()>>(std::move(wake));
  woken_ = false;
}

void EventStream::set_direct_writer(std::function<DirectWrite(std::string_view)> write) {
  std::lock_guard lock(mutex_);
  direct_ = std::move(write);
}

bool EventStream::take(std::string &out) {
  std::lock_guard lock(mutex_);
  out.swap(pending_);
  pending_.clear();
  woken_ = false;
  parked_ = false;
  return !(finished_ && out.empty());
}

bool EventStream::parked() const {
  std::lock_guard lock(mutex_);
  return parked_;
}

bool EventStream::park() {
  std::lock_guard lock(mutex_);
  if (!pending_.empty() || finished_) return false;
  parked_ = !abandoned_;
  return true;
}

void EventStream::abandon() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  parked_ = false;
  pending_.clear();
  wake_ = nullptr;    // it captured the connection, which is going away
  direct_ = nullptr;  // and so did this, with its socket
}

bool EventStream::abandoned() const { return abandoned_; }

std::string sse_frame(std::string_view name, std::string_view data) {
  return sse_frame_with(name, [data](std::string &frame) { frame += data; });
}

}  // namespace amplifier::host::serve
