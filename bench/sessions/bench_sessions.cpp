// N independent sessions at once in one host process, each the full stack (loop-streaming,
// context-simple, provider-anthropic against a loopback server pacing 100 deltas 10 ms apart),
// plus one session running a slow tool meanwhile. Prints completion, peak RSS, threads,
// delta -> hook latency (p50/p99), and wall time against a single session.
// Usage: bench_sessions [sessions=1000] [deltas=100] [interval_ms=10]
#include "many_sessions.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace {

void print(const char *label, const amp_test::ManySessionsReport &r) {
  fmt::print("{:>14}: {} completed, {} failed; wall {:.0f} ms (setup {:.0f} ms); peak RSS {:.1f} MB; "
             "threads {} ({} of them the harness's); delta->hook p50 {:.0f} us, p99 {:.0f} us, "
             "max {:.0f} us, p99 after each session's first 10 deltas {:.0f} us",
             label, r.completed, r.failures.size(), r.wall_ms, r.setup_ms, r.peak_rss_kb / 1024.0,
             r.peak_threads, r.harness_threads, r.latency_p50_us, r.latency_p99_us, r.latency_max_us,
             r.latency_p99_steady_us);
  if (r.deltas_during_slow_tool)
    fmt::print("; while the slow tool ran: {} deltas, p99 {:.0f} us", r.deltas_during_slow_tool,
               r.latency_p99_during_slow_tool_us);
  fmt::print("\n");
  for (std::size_t i = 0; i < r.failures.size() && i < 5; ++i) fmt::print("    {}\n", r.failures[i]);
}

}  // namespace

int main(int argc, char **argv) {
  amp_test::ManySessionsOptions options;
  options.sessions = argc > 1 ? std::atoi(argv[1]) : 1000;
  options.deltas = argc > 2 ? std::atoi(argv[2]) : 100;
  options.interval = std::chrono::milliseconds(argc > 3 ? std::atoi(argv[3]) : 10);
  try {
    amp_test::ManySessionsOptions single = options;
    single.sessions = 1;
    const auto one = amp_test::run_many_sessions(single);
    print("1 session", one);
    options.slow_tool_sessions = 1;
    const auto many = amp_test::run_many_sessions(options);
    print(fmt::format("{} sessions", options.sessions).c_str(), many);
    fmt::print("wall time, {} sessions / 1 session: x{:.2f}\n", options.sessions,
               many.wall_ms / one.wall_ms);
    return many.failures.empty() ? 0 : 1;
  } catch (const std::exception &e) {
    fmt::print(stderr, "bench_sessions: {}\n", e.what());
    return 1;
  }
}
