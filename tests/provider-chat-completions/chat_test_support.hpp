// Helpers for the provider-chat-completions tests, on top of the shared vendor-test helpers.
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

namespace chat_test {

namespace json = boost::json;
namespace loopback = amplifier::loopback;
using namespace amp_test;

inline const std::vector<std::size_t> kSmallPieces{5, 17, 3, 64};

// One chunk as a server sends it.
inline std::string chunk(const json::object &data) {
  return "data: " + json::serialize(data) + "\n\n";
}
inline const std::string kDone = "data: [DONE]\n\n";

// A chunk whose one choice has `delta` (and a finish_reason when given).
inline std::string delta_chunk(json::object delta, std::string_view finish_reason = {}) {
  json::object choice{{"index", 0}, {"delta", std::move(delta)}};
  choice["finish_reason"] =
      finish_reason.empty() ? json::value(nullptr) : json::value(finish_reason);
  return chunk({{"id", "chatcmpl-test"},
                {"object", "chat.completion.chunk"},
                {"model", "local-model"},
                {"choices", json::array{std::move(choice)}}});
}

inline std::string usage_chunk(int prompt, int completion) {
  return chunk({{"id", "chatcmpl-test"},
                {"choices", json::array{}},
                {"usage",
                 {{"prompt_tokens", prompt},
                  {"completion_tokens", completion},
                  {"total_tokens", prompt + completion}}}});
}

// A streamed text answer in `pieces`, then finish, usage and [DONE].
inline std::string text_stream(const std::vector<std::string> &pieces) {
  std::string sse = delta_chunk({{"role", "assistant"}, {"content", ""}});
  for (const auto &piece : pieces) sse += delta_chunk({{"content", piece}});
  return sse + delta_chunk({}, "stop") + usage_chunk(10, 5) + kDone;
}

// A .ndjson fixture of chunks as the SSE body the server sent, ended by [DONE].
inline std::string ndjson_as_sse(std::string_view name) {
  std::string sse;
  std::istringstream in(fixture(name));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) sse += "data: " + line + "\n\n";
  return sse + kDone;
}

inline loopback::ScriptedResponse sse_body(std::string body,
                                           std::vector<std::size_t> pieces = kSmallPieces) {
  return loopback::ScriptedResponse::sse(std::move(body), std::move(pieces));
}

inline json::object chat_config(const std::string &base_url) {
  return json::object{{"base_url", base_url + "/v1"},
                      {"default_model", "local-model"},
                      {"min_retry_delay", 0.01},
                      {"max_retry_delay", 0.05},
                      {"max_retries", 2}};
}

inline std::string chat_plan(const json::object &config, const std::string &rest = {}) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
         "  - module: provider-chat-completions\n    config: " +
         json::serialize(config) + "\n" + rest;
}

inline json::object user_request(std::string_view prompt) {
  return json::object{
      {"messages", json::array{json::object{{"role", "user"}, {"content", prompt}}}}};
}

inline json::object request_body(const loopback::RecordedRequest &request) {
  return json::parse(request.body).as_object();
}

inline std::shared_ptr<CallRecorder> call_chat(amplifier::Session &session,
                                               const json::object &request) {
  return amp_test::complete(session, "provider-chat-completions", request);
}

}  // namespace chat_test
