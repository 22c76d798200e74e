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
    if (pending_.empty())
      pending_ = std::move(frame);
    else
      pending_ += frame;
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
    wake = wake_once();
  }
  if (wake) (*wake)();
}

void EventStream::set_waker(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wake_ = std::make_shared<const std::function<void()>>(std::move(wake));
  woken_ = false;
}

bool EventStream::take(std::string &out) {
  std::lock_guard lock(mutex_);
  out.swap(pending_);
  pending_.clear();
  woken_ = false;
  return !(finished_ && out.empty());
}

void EventStream::abandon() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  pending_.clear();
  wake_ = nullptr;  // it captured the connection, which is going away
}

bool EventStream::abandoned() const { return abandoned_; }

std::string sse_frame(std::string_view name, std::string_view data) {
  return sse_frame_with(name, [data](std::string &frame) { frame += data; });
}

}  // namespace amplifier::host::serve
