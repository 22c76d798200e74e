// The cost of `isolation: process` against the same module in process (issue 13 §1 targets:
// at most 20 µs per call, at most 1 µs per stream delta):
//   1. a provider call on provider-mock (a one-delta answer), start to terminal event;
//   2. a tool call on tool-c-echo, start to terminal event;
//   3. a synchronous call: the context's get_messages on context-simple;
//   4. a long stream: provider-mock answering 200,000 one-character deltas, time per delta.
// Each figure is the median of many calls; both modes run in one process, one after the other.
// Usage: bench_isolation [calls] [stream_deltas]   (from a Release or RelWithDebInfo build)
#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

std::string plan(bool isolated, std::size_t stream_chars) {
  return fmt::format(R"(
session:
  orchestrator: loop-basic
  context: context-simple
  isolation: {}
providers:
  - module: provider-mock
    config: {{chunk_size: 64, responses: [{{text: "ok"}}]}}
  - module: provider-mock
    instance_id: long-stream
    config: {{chunk_size: 1, responses: [{{text: "{}"}}]}}
tools:
  - module: tool-c-echo
)",
                     isolated ? "process" : "in_process", std::string(stream_chars, 'x'));
}

// Waits for one call's terminal event and counts its deltas.
struct CallWait {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::size_t deltas = 0;

  amplifier::CallObserver observer() {
    amplifier::CallObserver o;
    o.on_event = [this](amp_call_id, std::string_view) {};
    o.on_delta = [this](amp_call_id, std::uint32_t, amp_delta_kind, std::string_view) { ++deltas; };
    o.on_finish = [this](amp_call_id, amp_status, std::string_view) {
      std::lock_guard lock(mutex);
      done = true;
      done_cv.notify_all();
    };
    return o;
  }
  void wait() {
    std::unique_lock lock(mutex);
    done_cv.wait(lock, [&] { return done; });
  }
};

struct Figures {
  double provider_call_us, tool_call_us, sync_call_us, stream_ns_per_delta;
  std::size_t deltas;
};

Figures measure(bool isolated, int calls, std::size_t stream_chars) {
  auto parsed = amplifier::parse_mount_plan(plan(isolated, stream_chars), "<bench>");
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR, AMP_TEST_MODULE_DIR};
  amplifier::Session session(parsed, options);
  session.initialize();
  auto &coordinator = session.coordinator();
  auto *provider = coordinator.provider("provider-mock");
  auto *long_stream = coordinator.provider("long-stream");
  auto *tool = coordinator.tool_owner("c_upper");
  auto *context = coordinator.context();
  const std::string request = R"({"messages":[{"role":"user","content":"hi"}]})";
  Figures f{};

  std::vector<double> samples;
  for (int i = 0; i < calls; ++i) {
    CallWait wait;
    auto start = Clock::now();
    coordinator.start_provider_call(*provider, request, wait.observer());
    wait.wait();
    samples.push_back(micros_since(start));
  }
  f.provider_call_us = median(samples);

  samples.clear();
  for (int i = 0; i < calls; ++i) {
    CallWait wait;
    auto start = Clock::now();
    coordinator.start_tool_call(*tool, "c_upper", R"({"text":"hi"})", wait.observer());
    wait.wait();
    samples.push_back(micros_since(start));
  }
  f.tool_call_us = median(samples);

  samples.clear();
  const auto *table = context->table<amp_context_vtable>();
  for (int i = 0; i < calls; ++i) {
    std::string out;
    amp_writer writer{&out, [](amp_writer *w, const char *d, size_t n) {
                        static_cast<std::string *>(w->host_data)->append(d, n);
                      }};
    auto start = Clock::now();
    table->get_messages(context->instance, &writer);
    samples.push_back(micros_since(start));
  }
  f.sync_call_us = median(samples);

  CallWait wait;
  auto start = Clock::now();
  coordinator.start_provider_call(*long_stream, request, wait.observer());
  wait.wait();
  f.deltas = wait.deltas;
  f.stream_ns_per_delta =
      micros_since(start) * 1000.0 / double(std::max<std::size_t>(1, wait.deltas));
  return f;
}

}  // namespace

int main(int argc, char **argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 2000;
  const std::size_t stream_chars = argc > 2 ? std::size_t(std::atol(argv[2])) : 200'000;
  amplifier::set_log_level(amplifier::LogLevel::Error);
  Figures in = measure(false, calls, stream_chars);
  Figures out = measure(true, calls, stream_chars);
  fmt::print(
      "isolation: process against in process, medians of {} calls; one stream of {} deltas\n",
      calls, in.deltas);
  fmt::print("{:<28}{:>14}{:>14}{:>14}\n", "", "in process", "isolated", "added");
  auto row = [](const char *label, double a, double b, const char *unit) {
    fmt::print("{:<28}{:>11.1f} {}{:>11.1f} {}{:>11.1f} {}\n", label, a, unit, b, unit, b - a,
               unit);
  };
  row("provider call (µs)", in.provider_call_us, out.provider_call_us, "  ");
  row("tool call (µs)", in.tool_call_us, out.tool_call_us, "  ");
  row("context get_messages (µs)", in.sync_call_us, out.sync_call_us, "  ");
  row("stream, per delta (ns)", in.stream_ns_per_delta, out.stream_ns_per_delta, "  ");
  if (in.deltas != out.deltas)
    fmt::print("warning: the two streams differ ({} and {} deltas)\n", in.deltas, out.deltas);
}
