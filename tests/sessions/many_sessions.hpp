// N independent sessions at once in this process, each on the full stack (loop-streaming,
// context-simple, provider-anthropic against a loopback server that paces its deltas), started
// without a thread each (Session::start). Shared by the 200-session test and the 1,000-session
// benchmark (bench/sessions).
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace amp_test {

struct ManySessionsOptions {
  int sessions = 200;
  int deltas = 100;                                    // text deltas per response
  std::chrono::milliseconds interval{10};              // between deltas, on the server
  // Sessions whose turn first runs a slow bash command (`sleep`) and then streams: the other
  // sessions' streams must not notice.
  int slow_tool_sessions = 0;
  std::chrono::milliseconds slow_tool_duration{1500};
  std::chrono::seconds timeout{120};
};

struct ManySessionsReport {
  int completed = 0;                       // turns that ended with status "success"
  std::vector<std::string> failures;       // one line per other turn
  double wall_ms = 0;                      // first start to last end
  double setup_ms = 0;                     // mounting every session
  std::int64_t peak_rss_kb = 0;            // VmHWM of the process at the end
  int peak_threads = 0;                    // most threads seen while the turns ran
  int harness_threads = 0;                 // of those, the harness's own (sampler, servers)
  std::uint64_t deltas_seen = 0;           // content_block:delta events the hooks received
  double latency_p50_us = 0;               // server send -> hook, over every delta
  double latency_p99_us = 0;
  double latency_max_us = 0;
  // The same without each session's first 10 deltas, which share the start-up with a thousand
  // connections opening.
  double latency_p99_steady_us = 0;
  // Delta latency of the ordinary sessions while a slow tool was running (slow_tool_sessions).
  double latency_p99_during_slow_tool_us = 0;
  std::uint64_t deltas_during_slow_tool = 0;
  bool transcripts_ok = true;              // every ordinary session stored prompt + answer
};

ManySessionsReport run_many_sessions(const ManySessionsOptions &options);

// The process's current thread count (from /proc/self/status).
int thread_count();

}  // namespace amp_test
