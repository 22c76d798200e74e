// Streaming latency: the time from a delta leaving the provider (the moment
// provider-test-stamp hands it to amp_host_api.call_event, stamped in the delta as "sent_ns",
// steady_clock) to its content_block:delta reaching a hook, through the kernel's call
// protocol and loop-streaming's forwarding. The measuring hook runs last (highest priority
// number), so every other handler's time, hooks-streaming-ui's included when it is built and
// mounted, counts.
// Usage: bench_streaming [turns] [deltas-per-turn] [interval-us]   (defaults 20 200 500)
#include "amplifier/hooks.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

bool streaming_ui_built() { return fs::exists(fs::path(AMP_MODULE_DIR) / "hooks-streaming-ui.so"); }

std::string plan(int deltas, int interval_us, bool with_ui) {
  return fmt::format(R"(
session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - module: provider-test-stamp
    config: {{deltas: {}, interval_us: {}}}
{})", deltas, interval_us, with_ui ? "hooks:\n  - module: hooks-streaming-ui\n" : "");
}

struct Latencies {
  std::mutex mutex;
  std::vector<double> micros;
};

double percentile(const std::vector<double> &sorted, double q) {
  return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * sorted.size()))];
}

int arg_or(int argc, char **argv, int index, int fallback) {
  return argc > index ? std::atoi(argv[index]) : fallback;
}

}  // namespace

int main(int argc, char **argv) {
  const int turns = arg_or(argc, argv, 1, 20);
  const int deltas = arg_or(argc, argv, 2, 200);
  const int interval_us = arg_or(argc, argv, 3, 500);
  const bool with_ui = streaming_ui_built();
  amplifier::set_log_level(amplifier::LogLevel::Warning);

  amplifier::SessionOptions options;
  options.module_path = {AMP_TEST_MODULE_DIR, AMP_MODULE_DIR};
  amplifier::Session session(amplifier::parse_mount_plan(plan(deltas, interval_us, with_ui), "<bench>"),
                             options);
  Latencies latencies;
  session.hooks().register_handler(
      "content_block:delta",
      [&latencies](std::string_view, const boost::json::object &data) {
        const auto arrived = Clock::now().time_since_epoch();
        const auto *delta = data.if_contains("delta");
        const auto *sent = delta && delta->is_object() ? delta->as_object().if_contains("sent_ns") : nullptr;
        if (sent && sent->is_int64()) {
          double micros = (std::chrono::duration<double, std::nano>(arrived).count() -
                           static_cast<double>(sent->as_int64())) / 1000.0;
          std::lock_guard lock(latencies.mutex);
          latencies.micros.push_back(micros);
        }
        return amplifier::HookResult{};
      },
      INT_MAX, "bench-latency");

  // hooks-streaming-ui writes to the terminal; its output goes to /dev/null so the figures
  // measure the pipeline, not the terminal emulator.
  int saved_stdout = -1;
  if (with_ui) {
    std::fflush(stdout);
    saved_stdout = ::dup(STDOUT_FILENO);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
  }
  session.initialize();
  for (int t = 0; t < turns; ++t) {
    auto result = session.execute("measure");
    if (result.status != "success") {
      std::fprintf(stderr, "turn %d ended with %s: %s\n", t, result.status.c_str(), result.response.c_str());
      return 1;
    }
  }
  session.cleanup();
  if (saved_stdout >= 0) {
    std::fflush(stdout);
    ::dup2(saved_stdout, STDOUT_FILENO);
    ::close(saved_stdout);
  }

  std::vector<double> sorted = latencies.micros;
  if (sorted.empty()) {
    std::fprintf(stderr, "no stamped delta reached the hook\n");
    return 1;
  }
  std::sort(sorted.begin(), sorted.end());
  fmt::print("loop-streaming + provider-test-stamp{}: {} deltas over {} turns\n",
             with_ui ? " + hooks-streaming-ui" : " (hooks-streaming-ui not built)", sorted.size(), turns);
  fmt::print("delta latency, call_event -> content_block:delta hook: median {:.1f} us, p99 {:.1f} us, "
             "max {:.1f} us\n",
             percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.back());
  return 0;
}
