// Sends finished spans to an OTLP/HTTP collector (JSON encoding), in batches, from a
// background I/O thread: a hook handler only appends to a queue, so tracing never blocks a
// turn, whatever the collector does.
//
// A batch goes out when max_batch spans are queued or every schedule_delay, whichever comes
// first; one request is in flight at a time. A collector that cannot be reached or refuses is
// warned about once (until it answers again); its spans are dropped, and so are spans beyond
// max_queue while it is slow. The destructor sends what is left, waiting up to
// shutdown_timeout, so a session's last spans (its own, ended at session:end) get out.
//
// Threads: add() from any thread (hook handlers run concurrently); everything else runs on
// the module library's background executor.
#pragma once
#include "otlp_json.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hooks_otel {

struct ExportOptions {
  std::string endpoint = "http://localhost:4318/v1/traces";
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. an authorization header
  std::size_t max_batch = 512;
  std::size_t max_queue = 8192;
  std::chrono::milliseconds schedule_delay{1000};
  std::chrono::milliseconds export_timeout{10000};
  std::chrono::milliseconds shutdown_timeout{3000};
  std::vector<Attribute> resource;  // service.name, ...
};

class OtlpExporter {
 public:
  // `warn` is called (from the I/O thread) once per run of failures.
  OtlpExporter(ExportOptions options, std::function<void(const std::string &)> warn);
  ~OtlpExporter();
  OtlpExporter(const OtlpExporter &) = delete;
  OtlpExporter &operator=(const OtlpExporter &) = delete;

  void add(Span span);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace hooks_otel
