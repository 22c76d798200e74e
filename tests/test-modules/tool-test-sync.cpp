// tool-test-sync: well-behaved tools whose completion depends on each other or on
// cancellation, so orchestrator tests can observe parallelism, result ordering and
// cancellation deterministically, without timing assumptions.
//
//   rendezvous {group, count, timeout_ms?}
//       Finishes successfully only once `count` calls of `group` have started; so it succeeds
//       only when the calls ran at the same time. Otherwise fails after timeout_ms (5000).
//   finish_after {text, after?, timeout_ms?}
//       Returns `text`, but only after the finish_after call whose text is `after` has
//       reported its terminal event: lets a test make the first call of a response finish last.
//   block_until_cancelled {timeout_ms?}
//       Emits `test:tool_blocking` {tool_call} and then waits until the call is cancelled
//       (terminal status AMP_CANCELLED). Fails after timeout_ms (30000) if never cancelled.
//   emit_then_finish {text}
//       Emits `test:tool_running` {tool_call, text} and then returns `text`: a test's handler
//       for that event runs while the call is certainly in progress (e.g. to cancel the turn
//       gracefully and check that the running call still completes).
//
// Every call runs on a thread of its own, so the tools' parallelism never depends on the
// size of the host's worker pool: whether calls overlap is decided by the orchestrator alone.
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct Outcome {
  Outcome() = default;
  Outcome(amp_status s, std::string p, bool r = true) : status(s), payload(std::move(p)), report(r) {}

  amp_status status = AMP_OK;
  std::string payload;
  bool report = true;  // false once destroy has begun: the module may no longer call the host
  std::function<void()> after_report;  // runs once the terminal event has been reported
};

Outcome success(std::string_view output) {
  return {AMP_OK, json::serialize(json::object{{"success", true}, {"output", output}})};
}
Outcome failure(std::string_view message) {
  return {AMP_OK, json::serialize(json::object{
                      {"success", false}, {"output", nullptr},
                      {"error", json::object{{"message", message}}}})};
}
Outcome cancelled() {
  return {AMP_CANCELLED, amp::sdk::error_json("abort", "cancelled while waiting")};
}

std::chrono::milliseconds timeout_of(const json::object &input, int default_ms) {
  if (auto *v = input.if_contains("timeout_ms"); v && v->is_int64())
    return std::chrono::milliseconds(v->as_int64());
  return std::chrono::milliseconds(default_ms);
}

std::string string_field(const json::object &input, std::string_view key) {
  auto *v = input.if_contains(key);
  if (!v || !v->is_string())
    throw std::invalid_argument("missing string field \"" + std::string(key) + "\"");
  return std::string(v->as_string());
}

class SyncTools final : public amp::sdk::ToolModule {
 public:
  SyncTools(amp::sdk::Host host, std::string_view) : ToolModule(host) {}

  // destroy must not call into the host: stop every waiting call silently, then join.
  ~SyncTools() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto &t : threads_) t.join();
  }

  std::string list_tools() override {
    return R"([
      {"name":"rendezvous","description":"Succeeds once `count` calls of `group` run at once.",
       "parameters":{"type":"object","properties":{"group":{"type":"string"},
         "count":{"type":"integer"},"timeout_ms":{"type":"integer"}},
         "required":["group","count"]}},
      {"name":"finish_after","description":"Returns `text` after the call whose text is `after`.",
       "parameters":{"type":"object","properties":{"text":{"type":"string"},
         "after":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["text"]}},
      {"name":"block_until_cancelled","description":"Waits until the call is cancelled.",
       "parameters":{"type":"object","properties":{"timeout_ms":{"type":"integer"}}}},
      {"name":"emit_then_finish","description":"Emits test:tool_running, then returns `text`.",
       "parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}
    ])";
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    json::object input = json::parse(input_json).as_object();
    std::string name(tool);
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, call, name, input = std::move(input)] {
      Outcome outcome;
      try {
        outcome = run(call, name, input);
      } catch (const std::exception &e) {
        outcome = failure(std::string(name) + ": " + e.what());
      }
      if (!outcome.report) return;
      host().call_finish(call, outcome.status, outcome.payload);
      if (outcome.after_report) outcome.after_report();
    });
  }

  void cancel(amp_call_id call, amp_cancel_level) override {
    {
      std::lock_guard lock(mutex_);
      cancelled_.insert(call);
    }
    changed_.notify_all();
  }

 private:
  Outcome run(amp_call_id call, const std::string &tool, const json::object &input) {
    if (tool == "rendezvous") return rendezvous(call, input);
    if (tool == "finish_after") return finish_after(call, input);
    if (tool == "block_until_cancelled") return block_until_cancelled(call, input);
    if (tool == "emit_then_finish") return emit_then_finish(call, input);
    return {AMP_NOT_FOUND, amp::sdk::error_json("not_found", "no tool named " + tool)};
  }

  enum class WaitEnd { Done, Cancelled, Stopped, TimedOut };

  // Waits until `done` holds, the call is cancelled, the module stops or the timeout passes.
  template <class Pred>
  WaitEnd wait_until(std::unique_lock<std::mutex> &lock, amp_call_id call,
                     std::chrono::milliseconds timeout, Pred done) {
    bool ended = changed_.wait_for(lock, timeout, [&] {
      return done() || cancelled_.contains(call) || stopping_;
    });
    if (stopping_) return WaitEnd::Stopped;
    if (cancelled_.contains(call)) return WaitEnd::Cancelled;
    return ended ? WaitEnd::Done : WaitEnd::TimedOut;
  }

  // The outcome of a wait that did not end with its condition met.
  static Outcome interrupted(WaitEnd end, std::string_view timeout_message) {
    if (end == WaitEnd::Stopped) return Outcome{AMP_CANCELLED, {}, false};
    if (end == WaitEnd::Cancelled) return cancelled();
    return failure(timeout_message);
  }

  Outcome rendezvous(amp_call_id call, const json::object &input) {
    const std::string group = string_field(input, "group");
    const auto count = input.at("count").to_number<std::int64_t>();
    std::unique_lock lock(mutex_);
    ++arrived_[group];
    changed_.notify_all();
    WaitEnd end = wait_until(lock, call, timeout_of(input, 5000),
                             [&] { return arrived_[group] >= count; });
    if (end != WaitEnd::Done)
      return interrupted(end, "only " + std::to_string(arrived_[group]) + " of " +
                                  std::to_string(count) + " calls of group " + group +
                                  " ran at the same time");
    return success("all " + std::to_string(count) + " calls of " + group + " met");
  }

  Outcome finish_after(amp_call_id call, const json::object &input) {
    const std::string text = string_field(input, "text");
    std::unique_lock lock(mutex_);
    if (input.contains("after")) {
      const std::string after = string_field(input, "after");
      WaitEnd end = wait_until(lock, call, timeout_of(input, 5000),
                               [&] { return finished_.contains(after); });
      if (end != WaitEnd::Done)
        return interrupted(end, "the call with text " + after + " never finished");
    }
    // Marked finished only after the host has heard of it, so a call waiting on this one
    // reports its own end strictly later.
    Outcome outcome = success(text);
    outcome.after_report = [this, text] {
      {
        std::lock_guard lock(mutex_);
        finished_.insert(text);
      }
      changed_.notify_all();
    };
    return outcome;
  }

  Outcome block_until_cancelled(amp_call_id call, const json::object &input) {
    host().emit("test:tool_blocking", json::serialize(json::object{{"tool_call", call}}));
    std::unique_lock lock(mutex_);
    WaitEnd end = wait_until(lock, call, timeout_of(input, 30000), [] { return false; });
    return interrupted(end, "block_until_cancelled was never cancelled");
  }

  Outcome emit_then_finish(amp_call_id call, const json::object &input) {
    const std::string text = string_field(input, "text");
    host().emit("test:tool_running", json::serialize(json::object{{"tool_call", call}, {"text", text}}));
    return success(text);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::map<std::string, std::int64_t> arrived_;  // rendezvous: calls started per group
  std::set<std::string> finished_;               // finish_after: texts of finished calls
  std::set<amp_call_id> cancelled_;
  std::vector<std::thread> threads_;
};

}  // namespace

AMP_DEFINE_MODULE(SyncTools, "tool-test-sync", "1.0.0",
                  "Test module: tools that synchronise on each other and on cancellation")
