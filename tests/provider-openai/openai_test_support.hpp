// Helpers for the provider-openai / provider-azure-openai tests, on top of the shared
// vendor-test helpers: recorded Responses streams as SSE bodies, plans and configs.
#pragma once
#include "kernel_calls.hpp"
#include "temp_files.hpp"
#include "vendor_test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <boost/json.hpp>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace openai_test {

namespace json = boost::json;
namespace loopback = amplifier::loopback;
using namespace amp_test;

// Small pieces, so events and even UTF-8 sequences arrive split.
inline const std::vector<std::size_t> kSmallPieces{5, 17, 3, 64};

// One JSON event as the API sends it: `event: <type>` then `data: <json>`.
inline std::string sse_event(const json::object &event) {
  return "event: " + std::string(event.at("type").as_string()) +
         "\ndata: " + json::serialize(event) + "\n\n";
}

// A recorded .ndjson fixture (one event per line; several streams one after the other, each
// beginning with response.created) as the SSE bodies the API sent.
inline std::vector<std::string> ndjson_streams(std::string_view name) {
  std::vector<std::string> streams;
  std::istringstream in(fixture(name));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json::object event = json::parse(line).as_object();
    if (event.at("type") == "response.created" || streams.empty()) streams.emplace_back();
    streams.back() +=
        "event: " + std::string(event.at("type").as_string()) + "\ndata: " + line + "\n\n";
  }
  return streams;
}

inline loopback::ScriptedResponse sse_body(std::string body) {
  return loopback::ScriptedResponse::sse(std::move(body), kSmallPieces);
}

// A plan with loop-basic, context-simple and `module` (config as JSON) plus `rest`.
inline std::string provider_plan(std::string_view module, const json::object &config,
                                 const std::string &rest = {}) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
         "  - module: " +
         std::string(module) + "\n    config: " + json::serialize(config) + "\n" + rest;
}

inline std::string openai_plan(const json::object &config, const std::string &rest = {}) {
  return provider_plan("provider-openai", config, rest);
}

// provider-openai against the loopback server: a test key, quick retries.
inline json::object openai_config(const std::string &base_url) {
  return json::object{{"base_url", base_url + "/v1"}, {"api_key", "sk-test"},
                      {"default_model", "gpt-test"},  {"min_retry_delay", 0.01},
                      {"max_retry_delay", 0.05},      {"max_retries", 2}};
}

// provider-azure-openai against the loopback server.
inline json::object azure_config(const std::string &base_url) {
  return json::object{{"azure_endpoint", base_url},
                      {"api_key", "azure-test-key"},
                      {"default_deployment", "my-deployment"},
                      {"min_retry_delay", 0.01},
                      {"max_retry_delay", 0.05},
                      {"max_retries", 2}};
}

inline json::object user_request(std::string_view prompt) {
  return json::object{
      {"messages", json::array{json::object{{"role", "user"}, {"content", prompt}}}}};
}

inline json::object request_body(const loopback::RecordedRequest &request) {
  return json::parse(request.body).as_object();
}

}  // namespace openai_test
