// SSE ingestion benchmark: ns per event, events per second and heap allocations per event
// when the recorded vendor streams go through SseParser (and each sink of bench_sinks.cpp),
// fed whole and cut into chunks of 1..16 bytes (network reads rarely align with events).
// Times are this thread's CPU time, so other load on a shared machine inflates them less than
// wall-clock time would.
// Usage: bench_sse [--min-time-ms N]   (build RelWithDebInfo or Release)
#include "allocation_counter.hpp"
#include "bench_sinks.hpp"

#include "amplifier/transport/ndjson_reader.hpp"
#include "amplifier/transport/sse_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <time.h>

namespace {

using amplifier::bench::EventSink;
using amplifier::bench::Stream;
using amplifier::transport::SseEvent;
using amplifier::transport::SseParser;

struct Measurement {
  double ns_per_event = 0;
  double events_per_second = 0;
  double megabytes_per_second = 0;
  double allocations_per_event = 0;
  std::uint64_t events = 0;
};

std::chrono::nanoseconds thread_cpu_time() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

// The framing of a sink's streams: SSE events, or JSON lines (each line handed to the sink as
// an event's data) for vendors that stream NDJSON.
class Framing {
 public:
  explicit Framing(std::function<void(const SseEvent &)> on_event)
      : sse_(on_event), lines_([on_event](std::string_view line) {
          on_event(SseEvent{std::string_view(), line, std::string_view()});
        }) {}
  void feed(bool ndjson, std::string_view chunk) {
    if (ndjson)
      lines_.feed(chunk);
    else
      sse_.feed(chunk);
  }
  amplifier::transport::SseStreamEnd finish(bool ndjson) {
    if (!ndjson) return sse_.finish();
    amplifier::transport::SseStreamEnd end;
    end.truncated = lines_.finish();
    return end;
  }

 private:
  SseParser sse_;
  amplifier::transport::NdjsonReader lines_;
};

// One pass over every stream of the corpus; chunk_size 0 feeds each stream whole.
std::uint64_t ingest(const std::vector<Stream> &corpus, std::size_t chunk_size, Framing &framing,
                     EventSink &sink) {
  std::uint64_t bytes = 0;
  const bool ndjson = sink.ndjson();
  for (const Stream &stream : corpus) {
    sink.begin_stream();
    const std::string_view data = stream.bytes;
    const std::size_t step = chunk_size == 0 ? data.size() : chunk_size;
    for (std::size_t at = 0; at < data.size(); at += step) framing.feed(ndjson, data.substr(at, step));
    sink.end_stream(framing.finish(ndjson));
    bytes += data.size();
  }
  return bytes;
}

Measurement measure(const std::vector<Stream> &corpus, std::size_t chunk_size, EventSink &sink,
                    std::chrono::milliseconds min_time) {
  std::uint64_t events = 0;
  Framing parser([&](const SseEvent &event) {
    ++events;
    sink.on_event(event);
  });
  ingest(corpus, chunk_size, parser, sink);  // warm-up: buffers reach their size
  const std::uint64_t events_per_pass = events;
  events = 0;

  std::uint64_t passes = 0, bytes = 0;
  const std::uint64_t allocations_before = amplifier::bench::allocations_so_far();
  const auto started = thread_cpu_time();
  auto elapsed = std::chrono::nanoseconds::zero();
  // Reading the CPU clock is a system call: batch passes so it stays out of the figures.
  const std::uint64_t passes_per_check = std::max<std::uint64_t>(1, 2000 / std::max<std::uint64_t>(1, events_per_pass));
  do {
    for (std::uint64_t i = 0; i < passes_per_check; ++i) bytes += ingest(corpus, chunk_size, parser, sink);
    passes += passes_per_check;
    elapsed = thread_cpu_time() - started;
  } while (elapsed < min_time);
  const std::uint64_t allocations = amplifier::bench::allocations_so_far() - allocations_before;

  const double seconds = std::chrono::duration<double>(elapsed).count();
  Measurement measurement;
  measurement.events = passes * events_per_pass;
  measurement.ns_per_event = seconds * 1e9 / static_cast<double>(measurement.events);
  measurement.events_per_second = static_cast<double>(measurement.events) / seconds;
  measurement.megabytes_per_second = static_cast<double>(bytes) / seconds / 1e6;
  measurement.allocations_per_event = static_cast<double>(allocations) / static_cast<double>(measurement.events);
  return measurement;
}

void print_row(std::string_view label, const Measurement &m) {
  fmt::print("  {:<44} {:>9.1f} {:>14.0f} {:>9.1f} {:>12.4f}\n", label, m.ns_per_event, m.events_per_second,
             m.megabytes_per_second, m.allocations_per_event);
}

void print_header(std::string_view title) {
  fmt::print("\n{}\n  {:<44} {:>9} {:>14} {:>9} {:>12}\n", title, "input", "ns/event", "events/s", "MB/s",
             "allocs/event");
}

void bench_sink(EventSink &sink, std::chrono::milliseconds min_time) {
  if (auto steady_stream = sink.steady_state()) {
    const std::vector<Stream> steady{std::move(*steady_stream)};
    print_header(fmt::format("sink {} — {} (per event)", sink.name(), steady.front().name));
    print_row("whole stream", measure(steady, 0, sink, min_time));
    print_row("16-byte chunks", measure(steady, 16, sink, min_time));
  }
  const std::vector<Stream> corpus = sink.corpus();
  if (corpus.empty()) {
    fmt::print("sink {}: no recorded streams\n", sink.name());
    return;
  }
  std::size_t bytes = 0;
  for (const Stream &stream : corpus) bytes += stream.bytes.size();
  print_header(fmt::format("sink {} — {} recorded streams ({} bytes), all in sequence",
                           sink.name(), corpus.size(), bytes));
  print_row("whole streams", measure(corpus, 0, sink, min_time));
  for (std::size_t chunk = 1; chunk <= 16; ++chunk)
    print_row(fmt::format("{}-byte chunks", chunk), measure(corpus, chunk, sink, min_time));

  print_header(fmt::format("sink {} — per stream, whole / 1-byte chunks", sink.name()));
  for (const Stream &stream : corpus) {
    const std::vector<Stream> one{stream};
    print_row(stream.name, measure(one, 0, sink, min_time));
    print_row("  (1-byte chunks)", measure(one, 1, sink, min_time));
  }
  fmt::print("  checksum {}\n", sink.checksum());
}

}  // namespace

int main(int argc, char **argv) {
  std::chrono::milliseconds min_time(300);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-time-ms") == 0 && i + 1 < argc) {
      min_time = std::chrono::milliseconds(std::atoi(argv[++i]));
    } else {
      fmt::print(stderr, "usage: {} [--min-time-ms N]\n", argv[0]);
      return 2;
    }
  }
  for (const auto &sink : amplifier::bench::make_sinks()) bench_sink(*sink, min_time);
  return 0;
}
