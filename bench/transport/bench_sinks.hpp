// What the benchmark does with each parsed SSE event. "sse-only" just counts; a provider adds
// its own sink (e.g. SSE -> kernel stream events) in bench_sinks.cpp, with the recorded streams
// it understands, and every measurement in bench_sse.cpp then runs through it too.
#pragma once

#include "amplifier/transport/sse_parser.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::bench {

struct Stream {
  std::string name;
  std::string bytes;  // as the server sent them: text/event-stream
};

// Every tests/fixtures/vendor/<prefix>*.sse, sorted by name.
std::vector<Stream> load_sse_corpus(std::string_view prefix);

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual std::string_view name() const = 0;
  // The recorded streams this sink understands.
  virtual std::vector<Stream> corpus() const = 0;
  // A long synthetic answer in the vendor's live framing (the steady state), if the sink has one.
  virtual std::optional<Stream> steady_state() const { return std::nullopt; }
  // True when the vendor streams JSON lines (each line reaches on_event as the data).
  virtual bool ndjson() const { return false; }
  // Called at the start of each stream (once per fixture per repetition).
  virtual void begin_stream() {}
  virtual void on_event(const transport::SseEvent &event) = 0;
  // Called after the parser's finish(); a sink may validate what it built.
  virtual void end_stream(const transport::SseStreamEnd &) {}
  // Something derived from all events, printed so the work cannot be optimised away.
  virtual std::uint64_t checksum() const = 0;
};

std::vector<std::unique_ptr<EventSink>> make_sinks();

}  // namespace amplifier::bench
