// The layer provider modules use: "send this request, retrying per policy, and give me SSE
// events (or NDJSON lines, or the whole body) as they arrive, then exactly one completion".
// A provider module is then only the mapping between its vendor's JSON and the kernel's.
#pragma once

#include "amplifier/errors.hpp"
#include "amplifier/transport/cancel_handle.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier/transport/retry_policy.hpp"
#include "amplifier/transport/sse_parser.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::transport {

enum class BodyFormat {
  sse,     // text/event-stream: on_event per event
  ndjson,  // one JSON document per line: on_line per line
  whole,   // buffered: CallResult::body
  // Decided by each successful response's Content-Type: text/event-stream is parsed as sse
  // (on_event), anything else is buffered as whole (CallResult::body). For protocols whose
  // server picks (MCP's Streamable HTTP answers a POST with JSON or with an event stream).
  by_content_type,
};

// Passed to the event callbacks of a call; valid only during the callback.
class CallControl {
 public:
  // Call once anything from this response has reached the user. From then on a failure is
  // final: a retry would repeat content the user already has.
  virtual void mark_content_delivered() = 0;
  virtual bool content_delivered() const = 0;
  // Ends the current attempt with `error` (an in-stream error event, unparsable JSON...): its
  // connection is closed and no further events are delivered. Retried per policy when
  // error.retryable and no content was delivered; otherwise the call completes with it.
  virtual void fail(KernelError error) = 0;
  // 1 for the first attempt, 2 for the first retry...
  virtual int attempt() const = 0;

 protected:
  ~CallControl() = default;
};

struct CallSpec {
  HttpRequest request;
  BodyFormat format = BodyFormat::sse;
  RetryOptions retry;
  ErrorMappingOptions errors;
  // Error (non-2xx) bodies are read up to this size for the vendor message.
  std::size_t max_error_body_bytes = 1 << 20;
  // A buffered (whole) successful body larger than this fails the attempt with a `stream`
  // error that is not retried; 0: no limit. A server cannot make the client hold gigabytes.
  std::size_t max_body_bytes = 0;
  // Likewise for one SSE event's data (checked as each event is dispatched); 0: no limit.
  std::size_t max_event_bytes = 0;
};

struct CallResult {
  std::optional<KernelError> error;  // empty on success
  ResponseHead head;                 // the last response's head (status 0 when none came)
  std::string body;                  // BodyFormat::whole: the successful response body
  SseStreamEnd sse_end;              // BodyFormat::sse: what the stream left unterminated
  bool event_stream = false;         // the successful body was decoded as SSE
  std::string last_event_id;         // sse: the stream's last event id (for a resumption)
  int attempts = 0;
};

// All callbacks run on the client's io thread, never concurrently for one call.
struct CallHandlers {
  // Each successful (2xx) response head, before its events; e.g. for rate-limit headers.
  std::function<void(const ResponseHead &head, CallControl &control)> on_head;
  std::function<void(const SseEvent &event, CallControl &control)> on_event;     // sse
  std::function<void(std::string_view line, CallControl &control)> on_line;      // ndjson
  // Before each retry wait (emit `provider:retry` with to_json(notice)).
  std::function<void(const RetryNotice &notice)> on_retry;
  // Exactly once, last. Cancellation (CancelHandle::cancel) ends with kind `cancelled`.
  std::function<void(CallResult result)> on_complete;
};

// Thread-safe; returns at once. Retry waits run on asio timers and are cancellable.
CancelHandle start_call(HttpClient &client, CallSpec spec, CallHandlers handlers);

}  // namespace amplifier::transport
