// provider-test-stamp: a streaming provider for latency measurements and request checks.
// Each completion streams one text block from its own thread: a first delta that reports the
// request's options ("extended_thinking=<v> reasoning_effort=<v> messages=<n>"), then
// `deltas` deltas of "." spaced by `interval_us`. Every delta carries "sent_ns", the
// steady_clock time (ns since its epoch) just before it is handed to the host, so a hook in
// the same process can measure how long the delta took to reach it.
// Config: {deltas: 20, interval_us: 1000}.
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

std::string option_text(const json::object &request, std::string_view key) {
  const json::value *v = request.if_contains(key);
  return v ? json::serialize(*v) : std::string("unset");
}

std::string request_summary(std::string_view request_json) {
  json::value parsed = json::parse(request_json);
  const json::object &request = parsed.as_object();
  const json::value *messages = request.if_contains("messages");
  std::size_t count = messages && messages->is_array() ? messages->get_array().size() : 0;
  return "extended_thinking=" + option_text(request, "extended_thinking") +
         " reasoning_effort=" + option_text(request, "reasoning_effort") +
         " messages=" + std::to_string(count);
}

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

class ProviderTestStamp final : public amp::sdk::ProviderModule {
 public:
  ProviderTestStamp(amp::sdk::Host host, std::string_view config_json) : ProviderModule(host) {
    json::value config = json::parse(config_json.empty() ? "{}" : config_json);
    if (const json::object *o = config.if_object()) {
      if (auto *d = o->if_contains("deltas")) deltas_ = d->to_number<int>();
      if (auto *i = o->if_contains("interval_us")) interval_ = std::chrono::microseconds(i->to_number<int>());
    }
  }

  // Every stream thread ends before the instance goes (the host destroys it only after its
  // calls finished or were abandoned; an abandoned one still runs to its end here).
  ~ProviderTestStamp() override {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      threads.swap(threads_);
    }
    for (auto &t : threads) t.join();
  }

  std::string info() override {
    return R"({"id":"provider-test-stamp","display_name":"Test stamping provider",)"
           R"("capabilities":["streaming"],"credential_env_vars":[],"defaults":{},"config_fields":[]})";
  }

  void complete(amp_call_id call, std::string_view request_json) override {
    std::string summary = request_summary(request_json);
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, call, summary] { stream(call, summary); });
  }

 private:
  void send_delta(amp_call_id call, std::string_view text) const {
    json::object event{{"type", "content_block_delta"},
                       {"index", 0},
                       {"delta", json::object{{"type", "text"}, {"text", text}}}};
    event["delta"].as_object()["sent_ns"] = steady_now_ns();
    host().call_event(call, json::serialize(event));
  }

  void stream(amp_call_id call, const std::string &summary) const {
    host().call_event(call, R"({"type":"content_block_start","index":0,"block":{"type":"text"}})");
    send_delta(call, summary);
    std::string text = summary;
    for (int i = 0; i < deltas_; ++i) {
      if (host().cancel_state(call) >= AMP_CANCEL_IMMEDIATE) {
        host().call_fail(call, "cancelled", "cancelled", AMP_CANCELLED);
        return;
      }
      std::this_thread::sleep_for(interval_);
      send_delta(call, ".");
      text += ".";
    }
    json::object block{{"type", "text"}, {"text", text}};
    host().call_event(call, json::serialize(json::object{
                                {"type", "content_block_end"}, {"index", 0}, {"block", block}}));
    host().call_finish(call, AMP_OK,
                       json::serialize(json::object{{"content", json::array{block}},
                                                    {"finish_reason", "end_turn"}}));
  }

  int deltas_ = 20;
  std::chrono::microseconds interval_{1000};
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

}  // namespace

AMP_DEFINE_MODULE(ProviderTestStamp, "provider-test-stamp", "1.0.0",
                  "Test provider: streams deltas stamped with steady_clock send times")
