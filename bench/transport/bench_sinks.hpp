// What the benchmark does with each parsed SSE event. "sse-only" just counts; a provider adds
// its own sink (e.g. SSE -> kernel stream events) in bench_sinks.cpp, and every measurement
// in bench_sse.cpp then runs through it too.
#pragma once

#include "amplifier/transport/sse_parser.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::bench {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual std::string_view name() const = 0;
  // Which recorded streams this sink understands (file name prefix, e.g. "anthropic_stream_").
  virtual std::string_view corpus_prefix() const = 0;
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
