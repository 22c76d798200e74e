// One response body produced by other threads (a turn's events) and written by the HTTP
// connection as it arrives: producers push frames, the connection takes them in order.
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <string>

namespace amplifier::host::serve {

class EventStream {
 public:
  // `sse`: the body is text/event-stream (written chunked, as it comes); otherwise it is one
  // JSON document, written once the stream is finished.
  explicit EventStream(bool sse = true) : sse_(sse) {}
  bool sse() const { return sse_; }

  // Producer side (any thread). Frames pushed after finish() or abandon() are dropped.
  void push(std::string frame);
  void finish();
  // The HTTP status of a non-SSE stream (set before finish(); default 200).
  void set_status(int status) { status_ = status; }
  int status() const { return status_; }

  // Consumer side. `wake` runs (on the producer's thread, so it must only post) whenever
  // frames arrive or the stream finishes.
  void set_waker(std::function<void()> wake);
  // Moves what is pending into `out`; false once the stream is finished and drained.
  bool take(std::string &out);
  // The reader went away (the client disconnected): producers stop buffering.
  void abandon();
  bool abandoned() const;

 private:
  const bool sse_;
  std::atomic<int> status_{200};
  mutable std::mutex mutex_;
  std::string pending_;
  bool finished_ = false;
  bool abandoned_ = false;
  std::function<void()> wake_;
};

// `event: NAME\ndata: JSON\n\n`; `name` empty: a data-only frame (what OpenAI clients expect).
std::string sse_frame(std::string_view name, std::string_view data);

}  // namespace amplifier::host::serve
