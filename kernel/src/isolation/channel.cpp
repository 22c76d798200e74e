#include "isolation/channel.hpp"

#include "amplifier/log.hpp"
#include "amplifier/worker_pool.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace amplifier::isolation {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
// After the socket ends, how long the peer's last output lines (an abort message, a
// sanitizer report) are still collected.
constexpr int kOutputDrainMs = 300;
// A line of peer output longer than this is passed on in pieces.
constexpr std::size_t kMaxOutputLine = 16 * 1024;

// The order of the last notify the current thread sent, per channel: a request waits for it.
struct LastNotify {
  const void *channel = nullptr;
  std::uint64_t order = 0;
};
thread_local LastNotify last_notify;

}  // namespace

struct Channel::Pending {
  std::condition_variable done_cv;
  bool done = false;
  std::optional<Reply> reply;  // empty when the channel closed first
};

Channel::Channel(int socket_fd, Handler &handler, int output_fd, std::uint32_t max_frame_bytes)
    : fd_(socket_fd), output_fd_(output_fd), max_frame_bytes_(max_frame_bytes), handler_(handler) {
  reader_ = std::thread([this] { read_loop(); });
  dispatcher_ = std::thread([this] { dispatch_loop(); });
  writer_ = std::thread([this] { write_loop(); });
}

Channel::~Channel() {
  close();
  {
    std::lock_guard lock(write_mutex_);
    stopping_ = true;
  }
  writer_cv_.notify_all();
  writer_.join();
  if (reader_.joinable()) reader_.join();
  // on_closed is the dispatcher's last act: if its handler's owner goes with it, the thread
  // ends on its own.
  if (dispatcher_.get_id() == std::this_thread::get_id()) {
    dispatcher_.detach();
  } else if (dispatcher_.joinable()) {
    dispatcher_.join();
  }
  {
    std::unique_lock lock(requests_mutex_);
    requests_cv_.wait(lock, [&] { return requests_running_ == 0; });
  }
  ::close(fd_);
  if (output_fd_ >= 0) ::close(output_fd_);
}

void Channel::close() {
  if (closed_.exchange(true)) return;
  ::shutdown(fd_, SHUT_RDWR);  // the reader wakes with the end of input
}

// ---- writing ---------------------------------------------------------------------------

bool Channel::notify(const Message &message) { return send(FrameKind::notify, 0, message); }

bool Channel::send(FrameKind kind, std::uint64_t tag, const Message &message) {
  checked_body_size(message, max_frame_bytes_);  // before it takes a place in the order
  std::unique_lock lock(write_mutex_);
  if (broken_ || closed_.load()) return false;
  std::uint64_t order = 0;
  if (kind == FrameKind::notify) {
    order = ++next_order_;
    last_notify = {this, order};
  } else if (kind == FrameKind::request && last_notify.channel == this) {
    order = last_notify.order;
  }
  append_frame(outgoing_, kind, tag, order, message, max_frame_bytes_);
  if (kind == FrameKind::notify && is_streamed(message.fn)) {
    // The writer thread sends it, batched with whatever else queues up meanwhile.
    if (!writing_ && writer_waiting_) writer_cv_.notify_one();
    return true;
  }
  const std::uint64_t mine = queued_bytes_ + outgoing_.size();
  if (writing_) {
    // The active writer sends it with its next batch. Returning before it is in the socket
    // would lose it if this process died right after (a module ending a call, then crashing).
    written_cv_.wait(lock, [&] { return written_bytes_ >= mine || broken_; });
    return written_bytes_ >= mine;
  }
  return drain(lock);
}

// Writes everything queued, including what others queue meanwhile. Called with the lock held
// and no other writer active; returns with the lock held.
bool Channel::drain(std::unique_lock<std::mutex> &lock) {
  writing_ = true;
  bool ok = true;
  while (!outgoing_.empty()) {
    std::swap(outgoing_, spare_);
    queued_bytes_ += spare_.size();
    lock.unlock();
    ok = write_all(spare_);
    const std::size_t sent = spare_.size();
    spare_.clear();
    lock.lock();
    if (!ok) {
      broken_ = true;
      outgoing_.clear();
      break;
    }
    written_bytes_ += sent;
  }
  writing_ = false;
  written_cv_.notify_all();
  return ok;
}

void Channel::write_loop() {
  std::unique_lock lock(write_mutex_);
  for (;;) {
    writer_waiting_ = true;
    writer_cv_.wait(lock,
                    [&] { return stopping_ || broken_ || (!outgoing_.empty() && !writing_); });
    writer_waiting_ = false;
    if (stopping_ || broken_) return;
    drain(lock);
  }
}

bool Channel::write_all(const std::string &bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += std::size_t(n);
  }
  return true;
}

std::variant<Reply, RequestFailure> Channel::request(const Message &message,
                                                     std::optional<Clock::time_point> deadline) {
  Pending pending;
  const std::uint64_t tag = next_tag_.fetch_add(1);
  {
    std::lock_guard lock(pending_mutex_);
    if (closed_.load()) return RequestFailure::closed;
    pending_.emplace(tag, &pending);
  }
  bool sent = false;
  bool too_large = false;
  try {
    sent = send(FrameKind::request, tag, message);
  } catch (const std::length_error &) {
    too_large = true;
  }
  std::unique_lock lock(pending_mutex_);
  if (too_large) {
    pending_.erase(tag);
    return RequestFailure::too_large;
  }
  if (sent) {
    auto ready = [&] { return pending.done; };
    if (deadline) {
      pending.done_cv.wait_until(lock, *deadline, ready);
    } else {
      pending.done_cv.wait(lock, ready);
    }
  }
  pending_.erase(tag);
  if (pending.reply) return std::move(*pending.reply);
  return pending.done || !sent || closed_.load() ? RequestFailure::closed
                                                 : RequestFailure::timed_out;
}

// ---- reading ---------------------------------------------------------------------------

void Channel::read_loop() {
  std::string input;
  std::string output;
  std::string reason = "the module process closed its end";
  bool output_open = output_fd_ >= 0;
  try {
    for (;;) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {output_open ? output_fd_ : -1, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        reason = fmt::format("poll failed: {}", std::strerror(errno));
        break;
      }
      if (fds[1].revents) {
        char chunk[4096];
        ssize_t n = ::read(output_fd_, chunk, sizeof chunk);
        if (n > 0) {
          output.append(chunk, std::size_t(n));
          read_output(output, false);
        } else if (n == 0 || errno != EINTR) {
          output_open = false;
        }
      }
      if (fds[0].revents && !handle_input(input)) break;
    }
  } catch (const std::exception &e) {
    reason = fmt::format("{}: {}", kMalformedFrame, e.what());
  }
  // Collect the peer's last words (an abort message, a sanitizer report) for a moment.
  while (output_open) {
    pollfd out{output_fd_, POLLIN, 0};
    if (::poll(&out, 1, kOutputDrainMs) <= 0) break;
    char chunk[4096];
    ssize_t n = ::read(output_fd_, chunk, sizeof chunk);
    if (n <= 0) break;
    output.append(chunk, std::size_t(n));
    read_output(output, false);
  }
  read_output(output, true);
  end(closed_.load() ? std::string("the channel was closed") : reason);
}

// Reads what the socket has and handles every complete frame; false at the end of input.
bool Channel::handle_input(std::string &buffer) {
  const std::size_t old_size = buffer.size();
  buffer.resize(old_size + kReadChunk);
  ssize_t n = ::read(fd_, buffer.data() + old_size, kReadChunk);
  if (n < 0 && errno == EINTR) {
    buffer.resize(old_size);
    return true;
  }
  if (n <= 0) {
    buffer.resize(old_size);
    return false;
  }
  buffer.resize(old_size + std::size_t(n));
  std::size_t consumed = 0;
  std::vector<Queued> notifies;  // handed to the dispatcher at once: one wake per read
  while (std::size_t size = complete_frame_size(std::string_view(buffer).substr(consumed), max_frame_bytes_)) {
    handle_frame(std::string_view(buffer).substr(consumed, size), notifies);
    consumed += size;
  }
  buffer.erase(0, consumed);
  if (!notifies.empty()) {
    std::lock_guard lock(queue_mutex_);
    for (auto &frame : notifies) queue_.emplace_back(std::move(frame));
    queue_cv_.notify_one();
  }
  return true;
}

void Channel::read_output(std::string &buffer, bool final_flush) {
  std::size_t start = 0;
  for (;;) {
    std::size_t newline = buffer.find('\n', start);
    if (newline == std::string::npos) break;
    std::string_view line(buffer.data() + start, newline - start);
    if (!line.empty()) handler_.on_output_line(line);
    start = newline + 1;
  }
  buffer.erase(0, start);
  if ((final_flush || buffer.size() > kMaxOutputLine) && !buffer.empty()) {
    handler_.on_output_line(buffer);
    buffer.clear();
  }
}

void Channel::handle_frame(std::string_view bytes, std::vector<Queued> &notifies) {
  Frame frame = decode_frame(bytes);
  switch (frame.kind) {
    case FrameKind::reply: {
      std::lock_guard lock(pending_mutex_);
      auto it = pending_.find(frame.tag);
      if (it == pending_.end()) return;  // its requester gave up (timed out)
      it->second->reply = Reply{frame.a, frame.b, std::string(frame.string(0))};
      it->second->done = true;
      it->second->done_cv.notify_one();
      return;
    }
    case FrameKind::notify: {
      const bool taken = handler_.take_notify_early(frame);
      notifies.push_back(Queued{std::string(bytes), taken});
      return;
    }
    case FrameKind::request: {
      {
        std::lock_guard lock(requests_mutex_);
        ++requests_running_;
      }
      try {
        WorkerPool::shared().submit(
            [this, owned = std::string(bytes)]() mutable { run_request(std::move(owned)); });
      } catch (...) {
        std::lock_guard lock(requests_mutex_);
        --requests_running_;
        requests_cv_.notify_all();
        throw;
      }
      return;
    }
  }
}

void Channel::run_request(std::string frame_bytes) {
  struct Done {
    Channel &channel;
    ~Done() {
      std::lock_guard lock(channel.requests_mutex_);
      if (--channel.requests_running_ == 0) channel.requests_cv_.notify_all();
    }
  } done{*this};
  Frame frame = decode_frame(frame_bytes);
  wait_for_order(frame.order);
  Reply reply;
  try {
    reply = handler_.on_request(frame);
  } catch (const std::exception &e) {
    reply = Reply{1 /* AMP_ERROR */, 0, e.what()};
  }
  Message answer(frame.fn, {reply.text}, reply.a, reply.b);
  try {
    send(FrameKind::reply, frame.tag, answer);
  } catch (const std::length_error &e) {
    // An answer over the frame limit becomes an error the requester can read.
    send(FrameKind::reply, frame.tag, Message(frame.fn, {e.what()}, 1 /* AMP_ERROR */));
  }
}

void Channel::wait_for_order(std::uint64_t order) {
  if (order == 0 || started_order_.load() >= order) return;
  std::unique_lock lock(order_mutex_);
  ++order_waiters_;
  order_cv_.wait_for(lock, kOrderingWait, [&] { return started_order_.load() >= order; });
  --order_waiters_;
}

// ---- dispatching -----------------------------------------------------------------------

void Channel::dispatch_loop() {
  for (;;) {
    std::optional<Queued> item;
    {
      std::unique_lock lock(queue_mutex_);
      queue_cv_.wait(lock, [&] { return !queue_.empty(); });
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    if (!item) break;
    try {
      Frame frame = decode_frame(item->bytes);
      started_order_.store(frame.order);
      {
        std::lock_guard lock(order_mutex_);
        if (order_waiters_ > 0) order_cv_.notify_all();
      }
      if (!item->taken_early) handler_.on_notify(frame);
    } catch (const std::exception &e) {
      log(LogLevel::Error, "isolation", fmt::format("a module message failed: {}", e.what()));
    }
  }
  {
    std::lock_guard lock(order_mutex_);
    started_order_.store(UINT64_MAX);  // nothing left to wait for
    order_cv_.notify_all();
  }
  std::string reason;
  {
    std::lock_guard lock(queue_mutex_);
    reason = end_reason_;
  }
  handler_.on_closed(reason);
}

void Channel::end(std::string reason) {
  closed_.store(true);
  {
    std::lock_guard lock(write_mutex_);
    broken_ = true;
  }
  written_cv_.notify_all();
  writer_cv_.notify_all();
  {
    std::lock_guard lock(pending_mutex_);
    for (auto &[tag, pending] : pending_) {
      pending->done = true;
      pending->done_cv.notify_one();
    }
  }
  std::lock_guard lock(queue_mutex_);
  end_reason_ = std::move(reason);
  queue_.emplace_back(std::nullopt);
  queue_cv_.notify_one();
}

}  // namespace amplifier::isolation
