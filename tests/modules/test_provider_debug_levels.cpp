// The provider spec's debug levels, the same for all six vendor providers (they share
// provider-kit's HttpProviderCall): by default llm:request / llm:response summaries only;
// `debug: true` adds llm:request:debug / llm:response:debug with the payloads, long strings
// cut; `debug: true, raw_debug: true` (or the older `raw: true`) adds llm:request:raw /
// llm:response:raw, complete. The key never appears at any level. Each provider answers a
// recorded stream of its vendor from a loopback server.
#include "kernel_calls.hpp"
#include "vendor_test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>

namespace json = boost::json;
using amp_test::fixture;
namespace loopback = amplifier::loopback;

namespace {

constexpr std::string_view kSecret = "sk-debug-level-secret";

struct Vendor {
  std::string module;
  std::function<json::object(const std::string &base_url)> config;
  std::function<void(loopback::LoopbackServer &)> answer;  // the recorded answer, queued
};

json::object with_retries_off(json::object config) {
  config["max_retries"] = 0;
  return config;
}

std::vector<Vendor> vendors() {
  auto sse = [](std::string name) {
    return [name](loopback::LoopbackServer &server) {
      server.enqueue(loopback::ScriptedResponse::sse(fixture(name), {7, 13}));
    };
  };
  return {
      {"provider-anthropic",
       [](const std::string &url) {
         return json::object{{"base_url", url}, {"api_key", kSecret}};
       },
       sse("anthropic_stream_text_recorded.sse")},
      {"provider-openai",
       [](const std::string &url) {
         return json::object{{"base_url", url + "/v1"}, {"api_key", kSecret},
                             {"default_model", "gpt-test"}};
       },
       sse("openai_responses_stream_docs.sse")},
      {"provider-azure-openai",
       [](const std::string &url) {
         return json::object{{"azure_endpoint", url}, {"api_key", kSecret},
                             {"default_deployment", "my-deployment"}};
       },
       sse("openai_responses_stream_docs.sse")},
      {"provider-chat-completions",
       [](const std::string &url) {
         return json::object{{"base_url", url + "/v1"}, {"api_key", kSecret},
                             {"default_model", "chat-test"}};
       },
       sse("openai_chat_stream_tool_call_usage_recorded.sse")},
      {"provider-gemini",
       [](const std::string &url) {
         return json::object{{"base_url", url}, {"api_key", kSecret},
                             {"default_model", "gemini-test"}};
       },
       sse("gemini_stream_text_recorded_firebase.sse")},
      {"provider-ollama",
       // A hosted Ollama's key (it asks /api/show for the model's context window first).
       [](const std::string &url) {
         return json::object{{"host", url}, {"default_model", "qwen3"}, {"api_key", kSecret}};
       },
       [](loopback::LoopbackServer &server) {
         server.enqueue(loopback::ScriptedResponse::json(
             200, R"({"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}})"));
         server.enqueue(
             loopback::ScriptedResponse::ndjson(fixture("ollama_chat_stream_docs.ndjson"), {9}));
       }},
  };
}

// One call through `vendor` at the level its `levels` config keys say; the events it reported.
std::vector<amp_test::EventRecorder::Event> events_of_call(const Vendor &vendor, const json::object &levels,
                                                 const std::string &prompt) {
  loopback::LoopbackServer server;
  vendor.answer(server);
  json::object config = with_retries_off(vendor.config(server.base_url()));
  for (const auto &[key, value] : levels) config[key] = value;
  auto session = amp_test::open_session("session:\n  orchestrator: loop-basic\n  context: context-simple\n"
                              "providers:\n  - module: " + vendor.module + "\n    config: " +
                              json::serialize(config) + "\n");
  amp_test::EventRecorder events(session->hooks());
  auto call = amp_test::complete(*session, vendor.module,
                       json::object{{"messages", json::array{json::object{
                                                     {"role", "user"}, {"content", prompt}}}}});
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_OK);
  std::vector<amp_test::EventRecorder::Event> out;
  for (std::string_view name : {"llm:request", "llm:request:debug", "llm:request:raw",
                                "llm:response", "llm:response:debug", "llm:response:raw"})
    for (auto &event : events.named(name)) out.push_back(std::move(event));
  return out;
}

std::size_t count(const std::vector<amp_test::EventRecorder::Event> &events, std::string_view name) {
  std::size_t n = 0;
  for (const auto &event : events) n += event.name == name;
  return n;
}

const json::object &first(const std::vector<amp_test::EventRecorder::Event> &events, std::string_view name) {
  for (const auto &event : events)
    if (event.name == name) return event.data;
  FAIL("no " << name);
  static const json::object none;
  return none;
}

}  // namespace

TEST_CASE("every vendor provider: summaries by default, cut payloads at debug, complete at raw") {
  // A prompt longer than the debug events keep of a string (512 bytes), with the key pasted
  // across that cut: scrubbed before it is cut, no part of it may remain.
  const std::string prompt = "Say hello. " + std::string(489, 'x') + std::string(kSecret) +
                             std::string(3000, 'x');
  for (const Vendor &vendor : vendors()) {
    CAPTURE(vendor.module);
    {
      const auto events = events_of_call(vendor, {}, prompt);
      CHECK(count(events, "llm:request") == 1);
      CHECK(count(events, "llm:response") == 1);
      CHECK(events.size() == 2);  // nothing at the debug levels
      CHECK(!first(events, "llm:request").contains("request"));
      CHECK(!first(events, "llm:response").contains("response"));
    }
    {
      const auto events = events_of_call(vendor, {{"debug", true}}, prompt);
      CHECK(count(events, "llm:request:debug") == 1);
      CHECK(count(events, "llm:response:debug") == 1);
      CHECK(count(events, "llm:request:raw") == 0);
      const std::string request = json::serialize(first(events, "llm:request:debug").at("request"));
      CHECK(request.find("Say hello.") != std::string::npos);
      CHECK(request.find(std::string(3000, 'x')) == std::string::npos);  // cut
      CHECK(request.find("more bytes]") != std::string::npos);
      for (const auto &event : events)
        CHECK_MESSAGE(json::serialize(event.data).find("sk-debug") == std::string::npos, event.name);
      CHECK(!first(events, "llm:response:debug").at("response").at("body").is_null());
    }
    for (const json::object &levels : {json::object{{"debug", true}, {"raw_debug", true}},
                                      json::object{{"raw", true}}}) {
      CAPTURE(json::serialize(levels));
      const auto events = events_of_call(vendor, levels, prompt);
      CHECK(count(events, "llm:request:raw") == 1);
      CHECK(count(events, "llm:response:raw") == 1);
      CHECK(count(events, "llm:request:debug") == 1);
      const std::string request = json::serialize(first(events, "llm:request:raw").at("request"));
      CHECK(request.find(std::string(3000, 'x')) != std::string::npos);  // complete
      for (const auto &event : events)
        CHECK_MESSAGE(json::serialize(event.data).find(kSecret) == std::string::npos, event.name);
    }
  }
}

TEST_CASE("raw_debug without debug is a config error naming it") {
  loopback::LoopbackServer server;
  auto session = amp_test::open_session(
      "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
      "  - module: provider-anthropic\n    config: {api_key: k, base_url: '" + server.base_url() +
      "', raw_debug: true}\n");
  REQUIRE(session->load_failures().size() == 1);
  CHECK(session->load_failures()[0].error.find("raw_debug") != std::string::npos);
  CHECK(session->load_failures()[0].error.find("needs debug: true") != std::string::npos);
}
