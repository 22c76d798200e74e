// One response body produced by other threads (a turn's events) and written by the HTTP
// connection as it arrives: producers push frames, the connection takes them in order.
//
// While the connection waits with nothing to write (parked), a producer writes its frame to the
// client itself through the direct writer, on its own thread: a delta then costs one send, not a
// wake of the connection's thread, a resumed coroutine and an asynchronous write. Whatever cannot
// go out at once (the socket's buffer is full, a write is in flight) waits for the connection.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace amplifier::host::serve {

// What a direct write did with a frame.
enum class DirectWrite {
  Sent,    // all of it is on its way to the client
  Kept,    // the writer kept what it could not send: the connection must finish it
  Broken,  // the client is gone: the connection must end the response
};

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

  // Consumer side. `wake` runs (on the producer's thread, so it must only post) when frames
  // arrive or the stream finishes, once until the next take(): a consumer that lags behind a
  // fast producer is woken once for everything pending, not once per frame.
  void set_waker(std::function<void()> wake);
  // `write` sends a frame to the client without blocking. It runs on a producer's thread with
  // the stream's lock held, only while the consumer is parked; what it keeps or finds broken
  // the consumer sees after its next take(). It is dropped by abandon().
  void set_direct_writer(std::function<DirectWrite(std::string_view frame)> write);
  // Moves what is pending into `out` and claims the connection (no direct writes until park());
  // false once the stream is finished and drained.
  bool take(std::string &out);
  // The consumer has written everything and waits: producers may write directly. False when
  // frames or the end arrived since take(): take again instead of waiting.
  bool park();
  // Still parked: nothing arrived for the consumer since park() (a wake it sees was stale).
  bool parked() const;
  // The reader went away (the client disconnected): producers stop buffering.
  void abandon();
  bool abandoned() const;

 private:
  // The waker to call now, if the consumer is not woken already. Caller holds the mutex.
  std::shared_ptr<const std::function<void()>> wake_once();

  const bool sse_;
  std::atomic<int> status_{200};
  std::atomic<bool> abandoned_{false};  // read without the lock, before an event is formatted
  mutable std::mutex mutex_;
  std::string pending_;
  bool finished_ = false;
  bool woken_ = false;   // the waker ran since the last take()
  bool parked_ = false;  // the consumer waits, pending_ is empty: producers write directly
  std::function<DirectWrite(std::string_view)> direct_;
  std::shared_ptr<const std::function<void()>> wake_;  // shared: called outside the lock
};

// `event: NAME\ndata: JSON\n\n`; `name` empty: a data-only frame (what OpenAI clients expect).
std::string sse_frame(std::string_view name, std::string_view data);
// The same with the data written by `write_data(std::string &)` straight into the frame.
template <class WriteData>
std::string sse_frame_with(std::string_view name, WriteData write_data) {
  std::string frame;
  frame.reserve(512);
  if (!name.empty()) {
    frame += "event: ";
    frame += name;
    frame += '\n';
  }
  frame += "data: ";
  write_data(frame);  // JSON text from the serializer never holds a raw newline
  frame += "\n\n";
  return frame;
}

}  // namespace amplifier::host::serve
