// One end of the socketpair between the host and a module process. The same class serves
// both ends: frames out (one writer at a time, batching whatever queued up meanwhile), frames
// in on a reader thread, one-way notifies run in order on a dispatcher thread, requests on
// the shared worker pool (they may block: an approval prompt, a tool running for minutes).
//
// A send returns once its frame is in the socket (possibly in a batch another thread wrote), so
// what a module reported before it crashed still reaches the host; except stream reports
// (is_streamed: deltas, stream events, log lines), which a writer thread sends in batches, so
// a fast stream costs one write per batch rather than per delta. What ends a call (its
// terminal event) is sent after every report queued before it.
//
// Ordering: notifies run one at a time in the order they were sent. A request waits (at
// most kOrderingWait) until every notify its sending thread sent before it has started, so a
// module that reports a call's events and then asks the host something is seen in that
// order, as it would be in process. The wait is bounded because a notify being handled may
// itself be waiting on the module, and waiting on it forever would deadlock both.
#pragma once
#include "isolation/wire.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

namespace amplifier::isolation {

// What a request's handler answers: a (amp_status), b and one text.
struct Reply {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::string text;
};

// closed: the channel ended first; timed_out: no reply by the deadline; too_large: the request
// is larger than the channel's frame limit, so it was not sent (the channel goes on).
enum class RequestFailure { closed, timed_out, too_large };

// How on_closed's reason starts when the peer broke the protocol (a frame over the limit, of
// an unknown kind, with too many strings): the peer is then not to be trusted to end by itself.
inline constexpr std::string_view kMalformedFrame = "the module process sent a malformed frame";

class Channel {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // On the dispatcher thread, one at a time, in the order they were sent.
    virtual void on_notify(const Frame &frame) = 0;
    // On the reader thread, as a notify arrives: true when it was handled there (it then
    // skips on_notify). For what only hands work on (to the pool): must never block or wait
    // for the peer.
    virtual bool take_notify_early(const Frame &) { return false; }
    // On a worker pool thread; may block and may run concurrently with others.
    virtual Reply on_request(const Frame &frame) = 0;
    // Once, on the dispatcher thread, after every notify received before the end has run.
    virtual void on_closed(const std::string &reason) = 0;
    // Each line the peer wrote to its stderr (when an output fd was given).
    virtual void on_output_line(std::string_view) {}
  };

  using Clock = std::chrono::steady_clock;
  static constexpr auto kOrderingWait = std::chrono::milliseconds(250);

  // Takes ownership of `socket_fd` (and `output_fd`, the read end of the peer's output, when
  // not -1). `handler` must outlive the channel. A frame whose body is larger than
  // `max_frame_bytes`, either way, ends the conversation (wire.hpp); both ends use the same.
  Channel(int socket_fd, Handler &handler, int output_fd = -1,
          std::uint32_t max_frame_bytes = kDefaultMaxFrameBytes);
  // Closes the socket and waits for the threads and every running request handler.
  // Never call it from the dispatcher thread or from inside a request handler.
  ~Channel();
  Channel(const Channel &) = delete;
  Channel &operator=(const Channel &) = delete;

  // Sends a one-way message. Returns false when the channel is closed. Throws
  // std::length_error, sending nothing, when the message is larger than the frame limit.
  bool notify(const Message &message);
  // Sends a request and waits for its reply until `deadline` (none: no limit).
  std::variant<Reply, RequestFailure> request(const Message &message,
                                              std::optional<Clock::time_point> deadline = {});
  // Ends the conversation: the reader sees the end, pending requests fail with `closed`.
  void close();
  bool is_closed() const { return closed_.load(); }

 private:
  struct Pending;
  // A notify waiting for the dispatcher. One taken early still passes through, so the order
  // of what has started stays exact.
  struct Queued {
    std::string bytes;
    bool taken_early = false;
  };
  bool send(FrameKind kind, std::uint64_t tag, const Message &message);
  bool drain(std::unique_lock<std::mutex> &lock);
  void write_loop();
  bool write_all(const std::string &bytes);
  void read_loop();
  bool handle_input(std::string &buffer);
  void read_output(std::string &buffer, bool final_flush);
  void handle_frame(std::string_view bytes, std::vector<Queued> &notifies);
  void dispatch_loop();
  void run_request(std::string frame_bytes);
  void wait_for_order(std::uint64_t order);
  void end(std::string reason);

  int fd_;
  int output_fd_;
  std::uint32_t max_frame_bytes_;
  Handler &handler_;
  std::atomic<bool> closed_{false};

  // Writing: whoever finds no writer active becomes it and drains `outgoing_`.
  std::mutex write_mutex_;
  std::string outgoing_;
  std::string spare_;
  bool writing_ = false;
  bool broken_ = false;
  // Bytes handed to the writer and bytes in the socket: a sender returns once its frame is in.
  std::uint64_t queued_bytes_ = 0;
  std::uint64_t written_bytes_ = 0;
  std::condition_variable written_cv_;
  std::condition_variable writer_cv_;  // wakes the writer thread for streamed frames
  bool writer_waiting_ = false;
  bool stopping_ = false;
  std::uint64_t next_order_ = 0;  // guarded by write_mutex_
  std::atomic<std::uint64_t> next_tag_{1};

  // Requests waiting for their reply.
  std::mutex pending_mutex_;
  std::unordered_map<std::uint64_t, Pending *> pending_;

  // Notifies waiting for the dispatcher (nullopt marks the end).
  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<std::optional<Queued>> queue_;
  std::string end_reason_;

  // The order of the last notify the dispatcher has started (for request ordering).
  std::mutex order_mutex_;
  std::condition_variable order_cv_;
  std::atomic<std::uint64_t> started_order_{0};
  int order_waiters_ = 0;

  // Request handlers running on the pool.
  std::mutex requests_mutex_;
  std::condition_variable requests_cv_;
  int requests_running_ = 0;

  std::thread reader_;
  std::thread dispatcher_;
  std::thread writer_;
};

}  // namespace amplifier::isolation
