// What a delegated child session costs, on provider-mock (no network, no model time): the
// median of R turns that (a) answer directly, (b) delegate once to a child, (c) delegate to K
// children in one response (they run in parallel). Each child is a whole session: mounted
// (orchestrator, context, provider), one turn, unmounted. Prints the medians, the cost per
// child, and peak RSS.
// Usage: bench_delegate [rounds=50] [parallel=10]
#include "amplifier/child_sessions.hpp"
#include "amplifier/session.hpp"
#include "scripted_children.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// The parent's script: `rounds` turns, each `children` delegate calls (0: a direct answer)
// and then the final text.
std::string plan(int rounds, int children) {
  std::string script;
  for (int r = 0; r < rounds; ++r) {
    if (children > 0) {
      script += "{tool_calls: [";
      for (int c = 0; c < children; ++c)
        script +=
            fmt::format("{}{{name: delegate, input: {{agent: self, instruction: \"task {}\"}}}}",
                        c ? ", " : "", c);
      script += "]}, ";
    }
    script += "{text: \"done\"}, ";
  }
  return "session:\n  orchestrator: loop-streaming\n  context: context-simple\nproviders:\n"
         "  - {module: provider-mock, config: {responses: [" +
         script + "]}}\ntools:\n  - module: tool-delegate\n";
}

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

double run(int rounds, int children) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.child_policy =
      std::make_shared<amp_test::ScriptedChildren>(R"([{text: "child answer"}])");
  amplifier::Session session(amplifier::parse_mount_plan(plan(rounds, children), "bench"), options);
  session.initialize();
  std::vector<double> times;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    auto result = session.execute("go");
    if (result.status != "success") {
      fmt::print(stderr, "turn failed: {}\n", result.response);
      std::exit(1);
    }
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  session.cleanup();
  return median_ms(times);
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
  const int parallel = argc > 2 ? std::atoi(argv[2]) : 10;
  const double plain = run(rounds, 0);
  const long rss_plain = peak_rss_kb();
  const double one = run(rounds, 1);
  const double many = run(rounds, parallel);
  fmt::print(
      "turn medians over {} rounds: plain {:.2f} ms; delegating to 1 child {:.2f} ms "
      "(+{:.2f} ms per child); to {} children in parallel {:.2f} ms (+{:.2f} ms per "
      "child)\n",
      rounds, plain, one, one - plain, parallel, many, (many - plain) / parallel);
  fmt::print("peak RSS: {:.1f} MB after the plain turns, {:.1f} MB at the end\n",
             rss_plain / 1024.0, peak_rss_kb() / 1024.0);
  return 0;
}
