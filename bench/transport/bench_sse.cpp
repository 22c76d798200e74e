// SSE ingestion benchmark: ns per event, events per second and heap allocations per event
// when the recorded vendor streams go through SseParser (and each sink of bench_sinks.cpp),
// fed whole and cut into chunks of 1..16 bytes (network reads rarely align with events).
// Times are this thread's CPU time, so other load on a shared machine inflates them less than
// wall-clock time would.
// Usage: bench_sse [--min-time-ms N]   (build RelWithDebInfo or Release)
#include "allocation_counter.hpp"
#include "bench_sinks.hpp"

#include "amplifier/transport/sse_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

namespace {

namespace fs = std::filesystem;
using amplifier::bench::EventSink;
using amplifier::transport::SseEvent;
using amplifier::transport::SseParser;

struct Stream {
  std::string name;
  std::string bytes;
};

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

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<Stream> load_corpus(std::string_view prefix) {
  std::vector<Stream> corpus;
  const fs::path dir = fs::path(AMP_VENDOR_FIXTURE_DIR);
  for (const auto &entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && entry.path().extension() == ".sse")
      corpus.push_back({name, read_file(entry.path())});
  }
  std::sort(corpus.begin(), corpus.end(), [](const Stream &a, const Stream &b) { return a.name < b.name; });
  return corpus;
}

// One pass over every stream of the corpus; chunk_size 0 feeds each stream whole.
std::uint64_t ingest(const std::vector<Stream> &corpus, std::size_t chunk_size, SseParser &parser,
                     EventSink &sink) {
  std::uint64_t bytes = 0;
  for (const Stream &stream : corpus) {
    sink.begin_stream();
    const std::string_view data = stream.bytes;
    const std::size_t step = chunk_size == 0 ? data.size() : chunk_size;
    for (std::size_t at = 0; at < data.size(); at += step) parser.feed(data.substr(at, step));
    sink.end_stream(parser.finish());
    bytes += data.size();
  }
  return bytes;
}

Measurement measure(const std::vector<Stream> &corpus, std::size_t chunk_size, EventSink &sink,
                    std::chrono::milliseconds min_time) {
  std::uint64_t events = 0;
  SseParser parser([&](const SseEvent &event) {
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

// The steady state of a long answer: one Anthropic stream of `deltas` short text deltas, in the
// live API's framing (its JSON padded with spaces before the closing brace).
Stream steady_state_stream(int deltas) {
  std::string body =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
      "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],"
      "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
  for (int i = 0; i < deltas; ++i)
    body += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            "\"delta\":{\"type\":\"text_delta\",\"text\":\" token\"}             }\n\n";
  body += "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
          "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
          "\"end_turn\"},\"usage\":{\"output_tokens\":" + std::to_string(deltas) + "}}\n\n"
          "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  return {"steady state: 10,000 text deltas", std::move(body)};
}

void bench_sink(EventSink &sink, std::chrono::milliseconds min_time) {
  if (sink.corpus_prefix() == "anthropic_stream_") {
    const std::vector<Stream> steady{steady_state_stream(10'000)};
    print_header(fmt::format("sink {} — steady state (per event, of which 99.95% text deltas)", sink.name()));
    print_row("whole stream", measure(steady, 0, sink, min_time));
    print_row("16-byte chunks", measure(steady, 16, sink, min_time));
  }
  const std::vector<Stream> corpus = load_corpus(sink.corpus_prefix());
  if (corpus.empty()) {
    fmt::print("sink {}: no streams matching {}*.sse\n", sink.name(), sink.corpus_prefix());
    return;
  }
  std::size_t bytes = 0;
  for (const Stream &stream : corpus) bytes += stream.bytes.size();
  print_header(fmt::format("sink {} — {} streams ({}*.sse, {} bytes), all in sequence", sink.name(),
                           corpus.size(), sink.corpus_prefix(), bytes));
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
