#include "many_sessions.hpp"

#include "anthropic_scripts.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/hooks.hpp"
#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

namespace amp_test {
namespace {

using Clock = std::chrono::steady_clock;
namespace json = boost::json;
using amplifier::loopback::LoopbackServer;
using amplifier::loopback::ScriptedResponse;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

ScriptedResponse sleep_call(std::chrono::milliseconds duration) {
  return bash_call(fmt::format("sleep {:.3f}", duration.count() / 1000.0));
}

std::string plan_for(const LoopbackServer &server, bool with_bash) {
  std::string plan = fmt::format(R"(session: {{orchestrator: loop-streaming, context: context-simple}}
providers:
  - module: provider-anthropic
    config: {{api_key: test-key, base_url: "{}", max_retries: 0, timeout: 60}}
)",
                                 server.base_url());
  if (with_bash) plan += "tools: [{module: tool-bash}]\n";
  return plan;
}

amplifier::SessionOptions session_options() {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  return options;
}

std::int64_t peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return 0;
}

double percentile(std::vector<std::int64_t> &values, double q) {
  if (values.empty()) return 0;
  const auto at = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<long>(at), values.end());
  return static_cast<double>(values[at]) / 1000.0;
}

// What one session's hook measured. Written only by that session's hook (one call's events
// never arrive concurrently), read after every turn ended.
struct SessionProbe {
  std::vector<std::int64_t> latencies_ns;
  std::vector<std::int64_t> arrivals_ns;
};

void attach_probe(amplifier::Session &session, SessionProbe &probe) {
  session.hooks().register_event_handler(
      "content_block:delta", [&probe](amplifier::HookEvent &event) -> std::optional<amplifier::HookResult> {
        const std::int64_t arrived = now_ns();
        const amplifier::HookEvent::Delta *delta = event.delta();
        if (!delta) return std::nullopt;
        const std::optional<std::int64_t> sent = send_time_in(delta->text);
        if (!sent) return std::nullopt;
        probe.latencies_ns.push_back(arrived - *sent);
        probe.arrivals_ns.push_back(arrived);
        return std::nullopt;
      });
}

// Samples the thread count until stopped.
class ThreadSampler {
 public:
  ThreadSampler() : thread_([this] { run(); }) {}
  ~ThreadSampler() { stop(); }
  int stop() {
    if (thread_.joinable()) {
      done_ = true;
      thread_.join();
    }
    return peak_;
  }

 private:
  void run() {
    while (!done_) {
      peak_ = std::max(peak_.load(), thread_count());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::atomic<bool> done_{false};
  std::atomic<int> peak_{0};
  std::thread thread_;
};

bool stored_prompt_and_answer(amplifier::Session &session) {
  auto *context = session.coordinator().context();
  if (!context) return false;
  amp::sdk::StringWriter out;
  context->table<amp_context_vtable>()->get_messages(context->instance, &out);
  json::value messages = json::parse(out.text);
  if (!messages.is_array() || messages.get_array().size() != 2) return false;
  const json::object &answer = messages.get_array()[1].as_object();
  return answer.at("role") == "assistant";
}

}  // namespace

int thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return 0;
}

ManySessionsReport run_many_sessions(const ManySessionsOptions &options) {
  ManySessionsReport report;
  const int before_servers = thread_count();
  LoopbackServer server;  // the ordinary sessions' vendor
  LoopbackServer slow_server;  // the slow-tool sessions': their own script
  // The servers' io threads, and the sampler started below, are the harness's, not the host's.
  report.harness_threads = thread_count() - before_servers + 1;
  server.set_default_response(paced_answer(options.deltas, options.interval));
  slow_server.set_default_response(paced_answer(options.deltas, options.interval));
  for (int i = 0; i < options.slow_tool_sessions; ++i)
    slow_server.enqueue(sleep_call(options.slow_tool_duration));

  const int total = options.sessions + options.slow_tool_sessions;
  std::vector<std::unique_ptr<amplifier::Session>> sessions;
  std::vector<SessionProbe> probes(static_cast<std::size_t>(total));
  const auto setup_start = Clock::now();
  const auto plan = amplifier::parse_mount_plan(plan_for(server, false), "many.yaml");
  const auto slow_plan = amplifier::parse_mount_plan(plan_for(slow_server, true), "slow.yaml");
  for (int i = 0; i < total; ++i) {
    const bool slow = i >= options.sessions;
    sessions.push_back(std::make_unique<amplifier::Session>(slow ? slow_plan : plan, session_options()));
    attach_probe(*sessions.back(), probes[static_cast<std::size_t>(i)]);
    sessions.back()->initialize();
    if (!sessions.back()->load_failures().empty())
      throw std::runtime_error("mount failed: " + sessions.back()->load_failures().front().error);
  }
  report.setup_ms = std::chrono::duration<double, std::milli>(Clock::now() - setup_start).count();

  std::mutex mutex;
  std::condition_variable all_done;
  int remaining = total;
  std::vector<std::string> statuses(static_cast<std::size_t>(total));
  ThreadSampler sampler;
  const auto start = Clock::now();
  std::int64_t slow_tool_from = 0, slow_tool_to = 0;
  // The slow-tool sessions go first, so their tool runs while the others stream.
  for (int i = total - 1; i >= 0; --i) {
    sessions[static_cast<std::size_t>(i)]->start("go", [&, i](amplifier::TurnResult result) {
      std::lock_guard lock(mutex);
      statuses[static_cast<std::size_t>(i)] = result.status == "success"
                                                  ? std::string()
                                                  : result.status + ": " + result.response;
      if (--remaining == 0) all_done.notify_all();
    });
    if (i == options.sessions) {
      slow_tool_from = now_ns();
      slow_tool_to = slow_tool_from +
                     std::chrono::duration_cast<std::chrono::nanoseconds>(options.slow_tool_duration).count();
    }
  }
  {
    std::unique_lock lock(mutex);
    if (!all_done.wait_for(lock, options.timeout, [&] { return remaining == 0; }))
      report.failures.push_back(fmt::format("{} of {} turns did not end within {} s", remaining,
                                            total, options.timeout.count()));
  }
  report.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  report.peak_threads = sampler.stop();

  std::vector<std::int64_t> latencies, steady, during_slow_tool;
  for (int i = 0; i < total; ++i) {
    const auto &probe = probes[static_cast<std::size_t>(i)];
    report.deltas_seen += probe.latencies_ns.size();
    latencies.insert(latencies.end(), probe.latencies_ns.begin(), probe.latencies_ns.end());
    if (probe.latencies_ns.size() > 10)
      steady.insert(steady.end(), probe.latencies_ns.begin() + 10, probe.latencies_ns.end());
    if (i < options.sessions && options.slow_tool_sessions > 0)
      for (std::size_t k = 0; k < probe.arrivals_ns.size(); ++k)
        if (probe.arrivals_ns[k] >= slow_tool_from && probe.arrivals_ns[k] <= slow_tool_to)
          during_slow_tool.push_back(probe.latencies_ns[k]);
    const std::string &status = statuses[static_cast<std::size_t>(i)];
    if (status.empty()) {
      ++report.completed;
      if (i < options.sessions && !stored_prompt_and_answer(*sessions[static_cast<std::size_t>(i)]))
        report.transcripts_ok = false;
    } else {
      report.failures.push_back(fmt::format("session {}: {}", i, status));
    }
  }
  report.latency_p50_us = percentile(latencies, 0.50);
  report.latency_p99_us = percentile(latencies, 0.99);
  report.latency_max_us = percentile(latencies, 1.0);
  report.latency_p99_steady_us = percentile(steady, 0.99);
  report.deltas_during_slow_tool = during_slow_tool.size();
  report.latency_p99_during_slow_tool_us = percentile(during_slow_tool, 0.99);
  for (auto &session : sessions) session->cleanup();
  report.peak_rss_kb = peak_rss_kb();
  return report;
}

}  // namespace amp_test
