// Kernel benchmarks (issue 2):
//   1. mount time of a six-module plan (cold: first load of each library; warm: cached);
//   2. time per turn of loop-basic + provider-mock, with no hooks and with 10 no-op hooks;
//   3. hook dispatch: ns per emit with 0, 1 and 10 handlers, typed deltas against DOM payloads,
//      and a module's emit that nobody listens to.
// Usage: bench_kernel [iterations]   (run from a Release or RelWithDebInfo build)
#include "amplifier/hooks.hpp"
#include "amplifier/log.hpp"
#include "amplifier/coordinator.hpp"
#include "amplifier/module_loader.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

struct Stats {
  double median, p90, min;
};

Stats stats_of(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) { return samples[std::min(samples.size() - 1, std::size_t(q * samples.size()))]; };
  return {at(0.5), at(0.9), samples.front()};
}

std::string six_module_plan(const fs::path &log_dir) {
  return fmt::format(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config: {{responses: [{{text: "ok"}}], chunk_size: 64}}
  - module: provider-mock
    instance_id: mock-secondary
tools:
  - module: tool-filesystem
hooks:
  - module: hooks-logging
    config: {{session_log_template: "{}/{{session_id}}.jsonl"}}
)", log_dir.string());
}

std::string turn_plan() {
  // A long script so every measured turn streams the same short answer.
  std::string responses;
  for (int i = 0; i < 4096; ++i) responses += "{text: \"The answer is forty-two.\"},";
  return fmt::format(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config: {{chunk_size: 8, delay_ms: 0, responses: [{}]}}
)", responses);
}

// The same loop on tests/test-modules/provider-c-typed: a provider that reads nothing of the
// request and streams a fixed answer, so what remains is the kernel, the loop and the context.
std::string bare_turn_plan() {
  return R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-c-typed
)";
}

amplifier::SessionOptions options() {
  amplifier::SessionOptions o;
  o.module_path = {AMP_MODULE_DIR, AMP_TEST_MODULE_DIR};
  return o;
}

void bench_mount(int iterations, const fs::path &log_dir) {
  auto plan = amplifier::parse_mount_plan(six_module_plan(log_dir), "bench");
  std::vector<double> samples;
  double cold = 0;
  for (int i = 0; i <= iterations; ++i) {
    auto start = Clock::now();
    amplifier::Session session(plan, options());
    session.initialize();
    double us = micros_since(start);
    if (!session.load_failures().empty())
      throw std::runtime_error("mount failed: " + session.load_failures().front().error);
    if (i == 0) cold = us;
    else samples.push_back(us);
  }
  auto s = stats_of(samples);
  fmt::print("mount, six-module plan      cold {:9.1f} us   warm median {:9.1f} us  p90 {:9.1f} us\n",
             cold, s.median, s.p90);
}

Stats bench_turns(int turns, int noop_hooks, const std::string &plan = turn_plan()) {
  amplifier::Session session(amplifier::parse_mount_plan(plan, "bench"), options());
  for (int i = 0; i < noop_hooks; ++i)
    session.hooks().register_handler("*", [](std::string_view, const boost::json::object &) {
      return amplifier::HookResult{};
    });
  session.initialize();
  std::vector<double> samples;
  for (int i = 0; i < turns + 5; ++i) {
    auto start = Clock::now();
    auto result = session.execute("What is the answer?");
    if (result.status != "success") throw std::runtime_error("turn failed: " + result.response);
    if (i >= 5) samples.push_back(micros_since(start));  // the first turns warm caches
  }
  return stats_of(samples);
}

// ns per call of `emit`, over `events` calls.
template <class Emit>
double ns_per_event(int events, Emit emit) {
  auto start = Clock::now();
  for (int i = 0; i < events; ++i) emit();
  return micros_since(start) * 1e3 / events;
}

// The registry's dispatch: `handlers` no-op handlers of the given kind for content_block:delta.
enum class HandlerKind { Event, JsonText, Dom };

void add_handlers(amplifier::HookRegistry &hooks, int handlers, HandlerKind kind) {
  for (int i = 0; i < handlers; ++i) {
    if (kind == HandlerKind::Dom) {
      hooks.register_handler("content_block:delta", [](std::string_view, const boost::json::object &) {
        return amplifier::HookResult{};
      });
    } else {
      const bool wants_json = kind == HandlerKind::JsonText;
      hooks.register_event_handler("content_block:delta",
                                   [wants_json](amplifier::HookEvent &e) -> std::optional<amplifier::HookResult> {
                                     if (wants_json) (void)e.data_json();
                                     return std::nullopt;
                                   });
    }
  }
}

void bench_hooks(int events) {
  const char *kinds[] = {"event handlers (typed)", "JSON-text handlers (module hooks)", "DOM handlers"};
  fmt::print("hook dispatch, ns per emit of content_block:delta:\n");
  fmt::print("  {:36} {:>9} {:>9} {:>9}\n", "", "0", "1", "10");
  for (HandlerKind kind : {HandlerKind::Event, HandlerKind::JsonText, HandlerKind::Dom}) {
    double typed[3], dom[3];
    int column = 0;
    for (int handlers : {0, 1, 10}) {
      amplifier::HookRegistry hooks;
      hooks.set_default_fields({{"session_id", "bench"}, {"parent_id", ""}});
      add_handlers(hooks, handlers, kind);
      typed[column] = ns_per_event(events, [&] { hooks.emit_content_delta(0, AMP_DELTA_TEXT, "tok"); });
      dom[column] = ns_per_event(events, [&] {
        hooks.emit("content_block:delta",
                   {{"block_index", 0}, {"delta", {{"type", "text"}, {"text", "tok"}}}});
      });
      ++column;
    }
    fmt::print("  {:36} {:9.1f} {:9.1f} {:9.1f}   emit_content_delta (typed)\n",
               kinds[static_cast<int>(kind)], typed[0], typed[1], typed[2]);
    fmt::print("  {:36} {:9.1f} {:9.1f} {:9.1f}   emit(DOM payload built by the caller)\n", "", dom[0],
               dom[1], dom[2]);
  }
}

// The ABI's emit from a module, result discarded, when nothing listens to the event.
void bench_abi_emit(int events) {
  amplifier::Session session(amplifier::parse_mount_plan(turn_plan(), "bench"), options());
  session.initialize();
  amp_host *host = &session.coordinator().mounted().front()->host;
  const amp_host_api *api = amplifier::host_api_table();
  const std::string data = R"({"block_index":0,"delta":{"type":"text","text":"tok"}})";
  const double ns = ns_per_event(events, [&] {
    api->emit(host, amp_str{"provider:request", 16}, amp_str{data.data(), data.size()}, nullptr);
  });
  fmt::print("ABI emit, no handler, result discarded: {:.1f} ns\n", ns);
}

}  // namespace

int main(int argc, char **argv) {
  int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  // A second argument picks one part: mount, turns or hooks (for profiling one at a time).
  const std::string only = argc > 2 ? argv[2] : "";
  auto wanted = [&](std::string_view part) { return only.empty() || only == part; };
  amplifier::set_log_level(amplifier::LogLevel::Error);
  fs::path log_dir = fs::temp_directory_path() / fmt::format("amp-bench-{}", ::getpid());
  fs::create_directories(log_dir);
  try {
    if (wanted("mount")) bench_mount(iterations / 4 + 1, log_dir);
    if (wanted("turns")) {
      auto plain = bench_turns(iterations, 0);
      auto hooked = bench_turns(iterations, 10);
      fmt::print("turn, loop-basic+mock, no hooks     median {:8.1f} us  p90 {:8.1f} us\n", plain.median, plain.p90);
      fmt::print("turn, loop-basic+mock, 10 no-op hooks median {:6.1f} us  p90 {:8.1f} us  (x{:.2f})\n",
                 hooked.median, hooked.p90, hooked.median / plain.median);
      auto bare = bench_turns(iterations, 0, bare_turn_plan());
      fmt::print("turn, loop-basic+C provider (no request parsing) median {:8.1f} us  p90 {:8.1f} us\n",
                 bare.median, bare.p90);
    }
    if (wanted("hooks")) {
      bench_hooks(200000);
      bench_abi_emit(2000000);
    }
  } catch (const std::exception &e) {
    fmt::print(stderr, "bench_kernel: {}\n", e.what());
    fs::remove_all(log_dir);
    return 1;
  }
  fs::remove_all(log_dir);
  return 0;
}
