// provider-mock: a provider that streams scripted (or default) responses through the real
// asynchronous call protocol, for tests and demos that must not touch the network.
#include "call_streamer.hpp"
#include "mock_config.hpp"
#include "response_planner.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <fstream>
#include <mutex>

namespace provider_mock {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr const char *kModuleId = "provider-mock";
constexpr std::int64_t kContextWindow = 200000;
constexpr std::int64_t kMaxOutputTokens = 8192;

MockConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, std::string(kModuleId) + " config");
  MockConfig config = MockConfig::read(reader, host);
  reader.warn_unknown_keys(host);
  return config;
}

std::string cancelled_payload(const MockConfig &config) {
  auto error = amplifier::KernelError::make(amplifier::ErrorKind::cancelled,
                                            "provider-mock call cancelled");
  error.provider = kModuleId;
  error.model = config.model;
  return json::serialize(amplifier::to_json(error));
}

json::object config_field(std::string_view id, std::string_view display_name,
                          std::string_view prompt, json::value default_value) {
  return {{"id", id},           {"display_name", display_name}, {"field_type", "text"},
          {"prompt", prompt},   {"required", false},            {"default", std::move(default_value)}};
}

// THREADS: complete/cancel run concurrently on host threads; the planner and the streamer are
// thread-safe. The SDK serialises construction and destruction against everything else.
class MockProvider final : public amp::sdk::ProviderModule {
 public:
  MockProvider(amp::sdk::Host host, std::string_view config_json)
      : ProviderModule(host),
        planner_(read_config(host, config_json), kModuleId),
        streamer_(host, planner_.config().delta_delay, cancelled_payload(planner_.config())) {}

  std::string info() override {
    const MockConfig &config = planner_.config();
    json::object info{
        {"id", kModuleId},
        {"display_name", "Mock provider"},
        {"credential_env_vars", json::array{}},
        {"capabilities", {{"streaming", true}, {"tools", true}, {"thinking", true}}},
        {"defaults", {{"model", config.model}}},
        {"config_fields",
         json::array{
             config_field("model", "Model", "Model id reported by the mock", "mock-model"),
             config_field("chunk_size", "Chunk size", "Characters per streamed delta", 8),
             config_field("delay_ms", "Delay (ms)", "Pause between streamed events", 0),
         }},
    };
    return json::serialize(info);
  }

  std::string list_models() override {
    json::array models{json::object{
        {"id", planner_.config().model},
        {"display_name", "Mock model"},
        {"context_window", kContextWindow},
        {"max_output_tokens", kMaxOutputTokens},
        {"capabilities", json::array{"tools", "thinking", "streaming"}},
    }};
    return json::serialize(models);
  }

  void complete(amp_call_id call, std::string_view request_json) override {
    if (!planner_.config().record_requests.empty()) record(request_json);
    streamer_.start(call, planner_.plan(call, request_json));
  }

  void cancel(amp_call_id call, amp_cancel_level level) override { streamer_.cancel(call, level); }

 private:
  // One line per request, appended whole under a lock (calls run concurrently).
  void record(std::string_view request_json) {
    std::lock_guard lock(record_mutex_);
    std::ofstream out(planner_.config().record_requests, std::ios::app | std::ios::binary);
    out << request_json << '\n';
    if (!out)
      host().warn("provider-mock: cannot record the request in " +
                  planner_.config().record_requests);
  }

  std::mutex record_mutex_;
  ResponsePlanner planner_;
  CallStreamer streamer_;  // declared last: destroyed first, while the planner still exists
};

}  // namespace
}  // namespace provider_mock

AMP_DEFINE_MODULE(provider_mock::MockProvider, "provider-mock", "0.1.0",
                  "Scripted, streamed responses for tests, through the real async protocol");
