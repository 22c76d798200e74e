// Incremental parser for text/event-stream (WHATWG HTML "Server-sent events", section
// "Interpreting an event stream"). Bytes go in as they arrive, in chunks of any size; events
// come out through a callback. Allocation-light: field buffers are reused across events, so a
// steady stream allocates nothing once the buffers have grown to the largest event.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::transport {

// One dispatched event. The views are valid only during the callback.
struct SseEvent {
  std::string_view type;  // the `event` field, or "message" when there was none
  std::string_view data;  // every `data` line of the event joined with '\n'
  std::string_view id;    // the last event id seen so far (it persists across events)
};

// What remained when the stream ended.
struct SseStreamEnd {
  // True when bytes after the last dispatched event did not form a complete event: a partial
  // line, or fields not followed by the blank line that dispatches them. Such an event is
  // discarded (WHATWG); callers may flag the stream as truncated.
  bool truncated = false;
  // The fields of the discarded event, when it had data (e.g. a last `data:` line whose blank
  // line never came). A caller that knows its vendor ends streams this way may still use it.
  std::optional<std::string> unterminated_type;
  std::optional<std::string> unterminated_data;
};

class SseParser {
 public:
  using EventHandler = std::function<void(const SseEvent &)>;

  explicit SseParser(EventHandler on_event);

  // Parses `chunk`, calling the handler for each event it completes. A line end, a field or a
  // UTF-8 sequence may be split across chunks at any byte.
  void feed(std::string_view chunk);
  // Ends the stream: reports (and drops) whatever incomplete event remains, then resets the
  // parser for a new stream (the last event id and reconnection time are kept).
  SseStreamEnd finish();

  // The `retry` field's value (reconnection time, ms) if the stream sent a valid one.
  std::optional<std::uint64_t> reconnection_time_ms() const { return reconnection_time_ms_; }
  std::string_view last_event_id() const { return last_event_id_; }

 private:
  std::size_t consume_bom(std::string_view chunk);
  void process_line(std::string_view line);
  void report_cut_line(std::string_view line);
  void process_field(std::string_view name, std::string_view value);
  void dispatch_event();

  EventHandler on_event_;
  std::string partial_line_;  // bytes of a line whose end has not arrived yet
  std::string data_;          // data buffer; each data line appended with a trailing '\n'
  std::string event_type_;
  std::string last_event_id_;
  std::optional<std::uint64_t> reconnection_time_ms_;
  bool has_data_ = false;
  bool has_fields_ = false;         // any field seen since the last dispatch (truncation report)
  bool skip_leading_lf_ = false;    // the previous chunk ended in CR: a leading LF ends no line
  bool at_stream_start_ = true;     // a UTF-8 BOM is stripped here only
  std::uint8_t bom_bytes_matched_ = 0;  // a BOM split across the first chunks
};

}  // namespace amplifier::transport
