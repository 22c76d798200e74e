#include "event_stream.hpp"

namespace amplifier::host::serve {

void EventStream::push(std::string frame) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (finished_ || abandoned_) return;
    pending_ += frame;
    wake = wake_;
  }
  if (wake) wake();
}

void EventStream::finish() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    wake = wake_;
  }
  if (wake) wake();
}

void EventStream::set_waker(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wake_ = std::move(wake);
}

bool EventStream::take(std::string &out) {
  std::lock_guard lock(mutex_);
  out.swap(pending_);
  pending_.clear();
  return !(finished_ && out.empty());
}

void EventStream::abandon() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  pending_.clear();
  wake_ = nullptr;  // it captured the connection, which is going away
}

bool EventStream::abandoned() const {
  std::lock_guard lock(mutex_);
  return abandoned_;
}

std::string sse_frame(std::string_view name, std::string_view data) {
  std::string frame;
  frame.reserve(name.size() + data.size() + 16);
  if (!name.empty()) {
    frame += "event: ";
    frame += name;
    frame += '\n';
  }
  frame += "data: ";
  frame += data;  // JSON text from the serializer never holds a raw newline
  frame += "\n\n";
  return frame;
}

}  // namespace amplifier::host::serve
