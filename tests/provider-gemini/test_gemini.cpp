// provider-gemini: thought signatures byte for byte on the part they came with, tool results
// grouped in one user content, schemas converted with degradations, usage taken last, blocked
// prompts and safety stops, typed errors (an invalid key is authentication, the key redacted),
// RetryInfo honoured, UTF-8 split across one-byte chunks, list_models.
#include "kernel_calls.hpp"
#include "vendor_test_support.hpp"

#include "gemini_call.hpp"
#include "gemini_config.hpp"
#include "gemini_request.hpp"
#include "gemini_schema.hpp"
#include "gemini_stream.hpp"

#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier/stream.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/sse_parser.hpp"
#include "amplifier_sdk.hpp"

#include <map>
#include <sstream>

using namespace amp_test;
using namespace std::chrono_literals;
namespace loopback = amplifier::loopback;
namespace ms = amplifier::module_support;

namespace {

// A .ndjson recording (one response per line) as the SSE body the API sends (CRLF framing).
std::string ndjson_as_sse(std::string_view name) {
  std::string sse;
  std::istringstream in(fixture(name));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) sse += "data: " + line + "\r\n\r\n";
  return sse;
}

std::string sse_of(const json::object &chunk) {
  return "data: " + json::serialize(chunk) + "\r\n\r\n";
}

struct Translation {
  std::vector<json::object> events;
  std::optional<amplifier::ChatResponse> response;
  std::optional<amplifier::KernelError> error;
};

Translation translate(std::string_view sse, std::size_t piece = 0) {
  Translation out;
  gemini::GeminiTranslator translator(
      [&](const json::object &event) { out.events.push_back(event); },
      [](std::string_view payload) { return amplifier::transport::map_stream_error(payload, {}); },
      [&](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
        namespace s = amplifier::stream;
        out.events.push_back(kind == AMP_DELTA_TEXT       ? s::text_delta(index, text)
                             : kind == AMP_DELTA_THINKING ? s::thinking_delta(index, text)
                                                          : s::tool_input_delta(index, text));
      });
  amplifier::transport::SseParser parser(
      [&](const amplifier::transport::SseEvent &event) { translator.on_sse_data(event.data); });
  try {
    const std::size_t step = piece == 0 ? sse.size() : piece;
    for (std::size_t at = 0; at < sse.size(); at += step) parser.feed(sse.substr(at, step));
    // As GeminiCall does: a last event without its blank line still counts.
    if (auto end = parser.finish(); end.unterminated_data)
      translator.on_sse_data(*end.unterminated_data);
    out.response = translator.take_response("provider-gemini");
  } catch (const amplifier::KernelException &e) {
    out.error = e.error();
  }
  return out;
}

json::value content_of(const amplifier::ChatResponse &response) {
  return amplifier::to_json(response).at("content");
}

gemini::GeminiConfig read_config(
    std::string_view text, const amplifier::provider::EnvLookup &env = [](std::string_view) {
      return std::optional<std::string>();
    }) {
  ms::ConfigReader reader(text, "provider-gemini config");
  return gemini::GeminiConfig::read(reader, env);
}

json::object gemini_config(const std::string &base_url) {
  return json::object{{"base_url", base_url},           {"api_key", "gm-test-key"},
                      {"default_model", "gemini-test"}, {"min_retry_delay", 0.01},
                      {"max_retry_delay", 0.05},        {"max_retries", 2}};
}

std::string plan(const json::object &config) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
         "  - module: provider-gemini\n    config: " +
         json::serialize(config) + "\n";
}

json::object user_request(std::string_view prompt) {
  return json::object{
      {"messages", json::array{json::object{{"role", "user"}, {"content", prompt}}}}};
}

json::object body_of(const loopback::RecordedRequest &request) {
  return json::parse(request.body).as_object();
}

loopback::ScriptedResponse sse_body(std::string body,
                                    std::vector<std::size_t> pieces = {5, 17, 3}) {
  return loopback::ScriptedResponse::sse(std::move(body), std::move(pieces));
}

}  // namespace

TEST_CASE(
    "recorded streams: the same events and response in chunks of 1 to 16 bytes, and the "
    "kernel's assembler agrees") {
  for (const std::string &sse :
       {fixture("gemini_stream_text_recorded_firebase.sse"),
        fixture("gemini_stream_thought_text_recorded_firebase.sse"),
        fixture("gemini_stream_thought_function_call_signature_recorded_firebase.sse"),
        ndjson_as_sse("gemini_stream_function_call_signature_gemini3_recorded_vercel.ndjson"),
        ndjson_as_sse("gemini_stream_text_signature_gemini3_recorded_vercel.ndjson")}) {
    const Translation whole = translate(sse);
    REQUIRE(whole.response);
    amplifier::ResponseAssembler assembler;
    for (const auto &event : whole.events) assembler.feed(event);
    CHECK(amplifier::to_json(assembler.finish()).at("content") == content_of(*whole.response));
    for (std::size_t piece = 1; piece <= 16; ++piece) {
      CAPTURE(piece);
      const Translation chunked = translate(sse, piece);
      REQUIRE(chunked.response);
      CHECK(chunked.events == whole.events);
    }
  }
}

TEST_CASE(
    "thought parts become thinking; the signature rides on the part it came with; usage "
    "is the last value") {
  const Translation t =
      translate(fixture("gemini_stream_thought_function_call_signature_recorded_firebase.sse"));
  REQUIRE(t.response);
  REQUIRE(t.response->content.size() == 2);
  const auto &thinking = std::get<amplifier::ThinkingBlock>(t.response->content[0]);
  CHECK(thinking.thinking.rfind("**Calculating the Days**", 0) == 0);
  CHECK(thinking.thinking.find("**Determining the Approach**") != std::string::npos);
  CHECK(!thinking.signature);
  const auto &call = std::get<amplifier::ToolCallBlock>(t.response->content[1]);
  CHECK(call.name == "now");
  CHECK(call.input.empty());
  CHECK(call.extra.at("thought_signature").as_string().starts_with("CiIBVKhc7vB+vaaq6rA"));
  CHECK(t.response->finish_reason == "tool_calls");
  CHECK(t.response->usage->input_tokens == 38);
  CHECK(t.response->usage->reasoning_tokens == 168);
  CHECK(t.response->usage->total_tokens == 212);

  // Gemini 3: the signature on an empty text part stays a part of its own.
  const Translation text =
      translate(ndjson_as_sse("gemini_stream_text_signature_gemini3_recorded_vercel.ndjson"));
  REQUIRE(text.response);
  REQUIRE(text.response->content.size() == 2);
  CHECK(std::get<amplifier::TextBlock>(text.response->content[0]).text ==
        "There are **3** \"r\"s in strawberry.\n\nSt**r**awbe**rr**y");
  const auto &signed_part = std::get<amplifier::TextBlock>(text.response->content[1]);
  CHECK(signed_part.text.empty());
  CHECK(signed_part.extra.at("thought_signature").as_string().starts_with("EpAICo0IAb4"));
}

TEST_CASE(
    "a blocked prompt is a content_filter error; a SAFETY stop is finish_reason "
    "content_filter; a stream without a finishReason is an error") {
  const Translation blocked =
      translate(fixture("gemini_stream_prompt_blocked_safety_recorded_firebase.sse"));
  REQUIRE(blocked.error);
  CHECK(blocked.error->kind == amplifier::ErrorKind::content_filter);
  CHECK(blocked.error->message.find("SAFETY") != std::string::npos);

  const Translation safety = translate(
      sse_of(fixture_json("gemini_response_finish_reason_safety_recorded_generative-ai-js.json")));
  REQUIRE(safety.response);
  CHECK(safety.response->finish_reason == "content_filter");

  std::string cut = fixture("gemini_stream_text_recorded_firebase.sse");
  cut.resize(cut.rfind("data:"));
  const Translation truncated = translate(cut);
  REQUIRE(truncated.error);
  CHECK(truncated.error->kind == amplifier::ErrorKind::stream);
}

TEST_CASE(
    "request mapping: systemInstruction, roles, results of one turn in one content, "
    "signatures back on exactly their parts, schemas converted with degradations") {
  const gemini::GeminiConfig config = read_config(R"({"api_key":"k","thinking_budget":1024,
                                                      "include_thoughts":true})");
  // The recorded parallel-call response, then both results (given in reverse order).
  const json::object recorded =
      fixture_json("gemini_response_parallel_function_calls_signature_recorded.json");
  const Translation t = translate(sse_of(recorded));
  REQUIRE(t.response);
  json::object assistant{{"role", "assistant"}, {"content", content_of(*t.response)}};
  const auto &calls = t.response->tool_calls;
  REQUIRE(calls.size() == 2);
  const json::value request = json::parse(R"({"messages":[
      {"role":"system","content":"Be brief."},
      {"role":"user","content":"print hello in blue and beep"}],
      "tools":[{"name":"print","parameters":{"$schema":"http://json-schema.org/draft-07/schema#",
        "type":"object","additionalProperties":false,
        "properties":{"color":{"type":["string","null"],"pattern":"red|blue"},
                      "text":{"type":"string","const":"hello"}},"required":["text"]}},
               {"name":"beep","parameters":{"type":"object","properties":{}}}]})");
  json::object with_turns = request.as_object();
  with_turns["messages"].as_array().push_back(assistant);
  with_turns["messages"].as_array().push_back(
      json::object{{"role", "tool"}, {"tool_call_id", calls[1].id}, {"content", "beeped"}});
  with_turns["messages"].as_array().push_back(json::object{
      {"role", "tool"}, {"tool_call_id", calls[0].id}, {"content", R"({"printed":true})"}});
  const gemini::MappedRequest mapped =
      gemini::map_request(amplifier::from_json<amplifier::ChatRequest>(with_turns), config);

  const json::object &body = mapped.body;
  CHECK(body.at("systemInstruction") == json::parse(R"({"parts":[{"text":"Be brief."}]})"));
  const json::array &contents = body.at("contents").as_array();
  REQUIRE(contents.size() == 3);
  // The model turn exactly as recorded: the signature on the first call only.
  CHECK(contents[1].at("role") == "model");
  CHECK(contents[1].at("parts") == recorded.at("candidates").at(0).at("content").at("parts"));
  CHECK(contents[2] == json::parse(R"({"role":"user","parts":[
      {"functionResponse":{"name":"print","response":{"printed":true}}},
      {"functionResponse":{"name":"beep","response":{"result":"beeped"}}}]})"));
  const json::object &print = body.at("tools").at(0).at("functionDeclarations").at(0).as_object();
  CHECK(print.at("parameters") == json::parse(R"({"type":"object",
      "properties":{"color":{"type":"string","nullable":true,"pattern":"red|blue"},
                    "text":{"type":"string","enum":["hello"]}},"required":["text"]})"));
  REQUIRE(mapped.degradations.size() == 1);
  CHECK(mapped.degradations[0].feature == "tool_schema");
  CHECK(mapped.degradations[0].reason.find("additionalProperties") != std::string::npos);
  CHECK(mapped.degradations[0].reason.find("$schema") != std::string::npos);
  CHECK(body.at("generationConfig").at("thinkingConfig") ==
        json::parse(R"({"thinkingBudget":1024,"includeThoughts":true})"));
}

TEST_CASE(
    "a tool loop through a session: the second request carries the thought part and the "
    "signed call byte for byte, the result in a user content") {
  const std::string first =
      fixture("gemini_stream_thought_function_call_signature_recorded_firebase.sse");
  loopback::LoopbackServer server;
  server.enqueue(sse_body(first));
  server.enqueue(sse_body(fixture("gemini_stream_text_recorded_firebase.sse")));
  auto session = open_session(plan(gemini_config(server.base_url())));
  EventRecorder events(session->hooks());
  const auto result = session->execute("How many days until New Year's Eve?");
  CHECK(result.status == "success");
  CHECK(result.response == "The capital of Wyoming is **Cheyenne**.\n");
  CHECK(events.named("tool:error").size() == 1);  // `now` is not mounted

  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].target == "/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
  CHECK(requests[0].header("x-goog-api-key") == "gm-test-key");
  CHECK(requests[0].target.find("gm-test-key") == std::string::npos);
  const json::object second = body_of(requests[1]);
  const json::array &contents = second.at("contents").as_array();
  REQUIRE(contents.size() == 3);
  const json::array &model_parts = contents[1].at("parts").as_array();
  REQUIRE(model_parts.size() == 2);
  CHECK(model_parts[0].at("thought") == true);
  std::string signature;
  for (const auto &line : sse_payloads(first))
    for (const auto &part : line.at("candidates").at(0).at("content").at("parts").as_array())
      if (part.as_object().contains("thoughtSignature"))
        signature = part.at("thoughtSignature").as_string();
  CHECK(model_parts[1].at("thoughtSignature").as_string() == signature);
  CHECK(model_parts[1].at("functionCall") == json::parse(R"({"name":"now","args":{}})"));
  // The recorded call had no id: none is made up for Gemini, on the call or on its answer.
  CHECK(!contents[2].at("parts").at(0).at("functionResponse").as_object().contains("id"));
  CHECK(requests[1].body.find(signature) != std::string::npos);
  CHECK(contents[2].at("parts").at(0).at("functionResponse").at("name") == "now");
}

TEST_CASE(
    "errors: an invalid key is authentication with the key redacted; RetryInfo is "
    "honoured; a 404 stream error") {
  {
    loopback::LoopbackServer server;
    server.set_default_response(loopback::ScriptedResponse::json(
        400, fixture("gemini_error_400_api_key_invalid_recorded_firebase.json")));
    json::object config = gemini_config(server.base_url());
    config["api_key"] = "key1234";
    auto session = open_session(plan(config));
    auto call = amp_test::complete(*session, "provider-gemini", user_request("hi"));
    REQUIRE(call->wait_finished());
    const json::object error = call->result();
    CHECK(error.at("kind") == "authentication");
    CHECK(json::serialize(error).find("key1234") == std::string::npos);
    CHECK(server.requests().size() == 1);
  }
  {
    // The recorded quota error, its RetryInfo shortened from 26 s to 1 s for the test.
    std::string body = fixture("gemini_error_429_retry_info_recorded_issue.json");
    body.replace(body.find("\"26s\""), 5, "\"1s\"");
    loopback::LoopbackServer server;
    server.enqueue(loopback::ScriptedResponse::json(429, body));
    server.enqueue(sse_body(fixture("gemini_stream_text_recorded_firebase.sse")));
    json::object config = gemini_config(server.base_url());
    config["max_retry_delay"] = 0.01;
    auto session = open_session(plan(config));
    const auto started = std::chrono::steady_clock::now();
    auto call = amp_test::complete(*session, "provider-gemini", user_request("hi"));
    REQUIRE(call->wait_finished(20s));
    CHECK(call->status == AMP_OK);
    CHECK(std::chrono::steady_clock::now() - started >= 1s);
    CHECK(server.requests().size() == 2);
  }
}

TEST_CASE("the recorded blocked prompt through a session: a content_filter error") {
  loopback::LoopbackServer server;
  server.set_default_response(
      sse_body(fixture("gemini_stream_prompt_blocked_safety_recorded_firebase.sse")));
  auto session = open_session(plan(gemini_config(server.base_url())));
  auto call = amp_test::complete(*session, "provider-gemini", user_request("..."));
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_ERROR);
  CHECK(call->result().at("kind") == "content_filter");
  CHECK(server.requests().size() == 1);
}

TEST_CASE("an error object mid-stream after content is a typed error, not retried") {
  std::string sse = fixture("gemini_stream_text_recorded_firebase.sse");
  sse.resize(sse.rfind("data:"));
  sse += sse_of(json::object{
      {"error",
       {{"code", 503}, {"message", "The model is overloaded."}, {"status", "UNAVAILABLE"}}}});
  loopback::LoopbackServer server;
  server.set_default_response(sse_body(sse));
  auto session = open_session(plan(gemini_config(server.base_url())));
  auto call = amp_test::complete(*session, "provider-gemini", user_request("hi"));
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_ERROR);
  CHECK(std::string(call->result().at("message").as_string()).find("overloaded") !=
        std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("UTF-8 split across one-byte chunks, CRLF framing") {
  std::string sse;
  for (std::string_view piece : {"Grüße, ", "世界 ", "🙂"})
    sse += sse_of(json::object{
        {"candidates",
         json::array{
             {{"content", {{"role", "model"}, {"parts", json::array{{{"text", piece}}}}}}}}}});
  sse += sse_of(json::object{
      {"candidates",
       json::array{{{"content", {{"role", "model"}, {"parts", json::array{{{"text", "!"}}}}}},
                    {"finishReason", "STOP"}}}},
      {"usageMetadata",
       {{"promptTokenCount", 3}, {"candidatesTokenCount", 4}, {"totalTokenCount", 7}}}});
  loopback::LoopbackServer server;
  server.enqueue(sse_body(sse, {1}));
  auto session = open_session(plan(gemini_config(server.base_url())));
  CHECK(session->execute("hi").response == "Grüße, 世界 🙂!");
}

TEST_CASE("config: GEMINI_API_KEY, then GOOGLE_API_KEY; list_models pages") {
  auto env = [](std::map<std::string, std::string, std::less<>> values) {
    return [values](std::string_view name) -> std::optional<std::string> {
      auto it = values.find(name);
      if (it == values.end()) return std::nullopt;
      return it->second;
    };
  };
  CHECK(read_config("{}", env({{"GOOGLE_API_KEY", "g"}})).api_key == "g");
  CHECK(read_config("{}", env({{"GOOGLE_API_KEY", "g"}, {"GEMINI_API_KEY", "m"}})).api_key == "m");
  CHECK(read_config(R"({"api_key":"c"})", env({{"GEMINI_API_KEY", "m"}})).api_key == "c");

  loopback::LoopbackServer server;
  server.enqueue(
      loopback::ScriptedResponse::json(200, R"({"models":[{"name":"models/gemini-2.5-pro",
      "displayName":"Gemini 2.5 Pro","inputTokenLimit":1048576,"outputTokenLimit":65536}],
      "nextPageToken":"p/2"})"));
  server.enqueue(
      loopback::ScriptedResponse::json(200, R"({"models":[{"name":"models/gemini-2.5-flash"}]})"));
  auto session = open_session(plan(gemini_config(server.base_url())));
  const auto *provider = session->coordinator().provider("provider-gemini");
  REQUIRE(provider);
  amp::sdk::StringWriter out;
  REQUIRE(provider->table<amp_provider_vtable>()->list_models(provider->instance, &out) == AMP_OK);
  const json::array models = json::parse(out.text).as_array();
  REQUIRE(models.size() == 2);
  CHECK(models[0].at("id") == "gemini-2.5-pro");
  CHECK(models[0].at("context_window") == 1048576);
  const auto requests = server.requests();
  CHECK(requests[0].target == "/v1beta/models?pageSize=1000");
  CHECK(gemini::generate_url(read_config("{}"), "models/gemini-2.5-pro", true) ==
        "https://generativelanguage.googleapis.com/v1beta/models/"
        "gemini-2.5-pro:streamGenerateContent?alt=sse");
  CHECK(requests[1].target == "/v1beta/models?pageSize=1000&pageToken=p%2F2");
  CHECK(requests[0].header("x-goog-api-key") == "gm-test-key");
}

TEST_CASE(
    "every recorded gemini_response_* body, served whole (stream: false), ends the call "
    "as it should") {
  struct Expected {
    const char *fixture;
    const char *finish_reason;  // nullptr: a content_filter error
  };
  for (const Expected &e :
       {Expected{"gemini_response_cached_thoughts_usage_recorded.json", "stop"},
        Expected{"gemini_response_finish_reason_safety_recorded_generative-ai-js.json",
                 "content_filter"},
        Expected{"gemini_response_function_call_signature_gemini3_recorded_vercel.json",
                 "tool_calls"},
        Expected{"gemini_response_parallel_function_calls_signature_recorded.json", "tool_calls"},
        Expected{"gemini_response_prompt_blocked_safety_recorded.json", nullptr},
        Expected{"gemini_response_text_signature_gemini3_recorded_vercel.json", "stop"},
        Expected{"gemini_response_thought_function_call_signature_recorded_firebase.json",
                 "tool_calls"},
        Expected{"gemini_response_thought_only_max_tokens_recorded.json", "length"},
        Expected{"gemini_response_thought_text_recorded_firebase.json", "stop"}}) {
    const std::string name = e.fixture;
    CAPTURE(name);
    const json::object recorded = fixture_json(e.fixture);
    loopback::LoopbackServer server;
    server.enqueue(loopback::ScriptedResponse::json(200, json::serialize(recorded)));
    auto session = open_session(plan(gemini_config(server.base_url())));
    json::object request = user_request("hi");
    request["stream"] = false;
    auto call = amp_test::complete(*session, "provider-gemini", request);
    REQUIRE(call->wait_finished());
    CHECK(server.requests().at(0).target == "/v1beta/models/gemini-test:generateContent");
    if (!e.finish_reason) {
      CHECK(call->result().at("kind") == "content_filter");
      continue;
    }
    REQUIRE(call->status == AMP_OK);
    const json::object response = call->result();
    CHECK(response.at("finish_reason") == e.finish_reason);
    // Every recorded part is a block, its signature (if any) on it, byte for byte.
    const auto &parts = recorded.at("candidates").at(0).at("content").at("parts").as_array();
    const auto &content = response.at("content").as_array();
    REQUIRE(content.size() == parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const json::object &part = parts[i].as_object();
      if (const json::value *signature = part.if_contains("thoughtSignature")) {
        const json::object &block = content[i].as_object();
        CHECK((block.contains("signature") ? block.at("signature")
                                           : block.at("thought_signature")) == *signature);
      }
    }
    if (const json::value *usage = recorded.if_contains("usageMetadata"))
      CHECK(response.at("usage").at("input_tokens") == usage->at("promptTokenCount"));
  }
}

TEST_CASE("every recorded gemini_error_* ends the call with its typed error") {
  struct Expected {
    const char *fixture;
    const char *kind;
  };
  for (const Expected &e :
       {Expected{"gemini_error_400_api_key_invalid_recorded_firebase.json", "authentication"},
        Expected{"gemini_error_400_bad_request_field_violation_recorded.json", "invalid_request"},
        Expected{"gemini_error_404_stream_recorded.json", "not_found"},
        Expected{"gemini_error_429_rate_limit_errorinfo_recorded_firebase.json", "rate_limit"},
        Expected{"gemini_error_429_retry_info_recorded_issue.json", "rate_limit"},
        Expected{"gemini_error_503_unavailable_recorded_issue.json", "unavailable"}}) {
    const std::string name = e.fixture;
    CAPTURE(name);
    const json::value recorded = json::parse(fixture(e.fixture));
    // The 404 recording holds the whole exchange; the others are the body alone.
    const bool exchange = recorded.as_object().contains("bodySegments");
    const json::value body = exchange ? recorded.at("bodySegments").at(0) : recorded;
    const int status = exchange ? static_cast<int>(recorded.at("statusCode").as_int64())
                                : static_cast<int>(body.at("error").at("code").as_int64());
    loopback::LoopbackServer server;
    server.set_default_response(loopback::ScriptedResponse::json(status, json::serialize(body)));
    json::object config = gemini_config(server.base_url());
    config["max_retries"] = 0;  // the kind is the point here, not the waits
    auto session = open_session(plan(config));
    auto call = amp_test::complete(*session, "provider-gemini", user_request("hi"));
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_ERROR);
    CHECK(call->result().at("kind") == e.kind);
    CHECK(call->result().at("status_code") == status);
  }
}

TEST_CASE("requests like the recorded ones: systemInstruction, thinkingBudget, includeThoughts") {
  auto body_for = [](std::string_view config_text, std::string_view request_text) {
    return gemini::map_request(chat_request(request_text), read_config(config_text)).body;
  };
  const json::object system = fixture_json("gemini_request_system_instruction_recorded.json");
  const json::object ours_system = body_for(R"({"api_key":"k"})", R"({"messages":[
      {"role":"system","content":"I say high you say low, and then tell me why is the sky blue."},
      {"role":"user","content":"high"}]})");
  CHECK(ours_system.at("systemInstruction").at("parts") ==
        system.at("systemInstruction").at("parts"));
  CHECK(ours_system.at("contents") == system.at("contents"));

  const json::object budget = fixture_json("gemini_request_thinking_budget_recorded.json");
  const json::object ours_budget =
      body_for(R"({"api_key":"k","thinking_budget":50})",
               R"({"messages":[{"role":"user","content":"why is the sky blue?"}],
                                                "max_output_tokens":200})");
  // The recorded request set the budget alone; ours also asks for the thoughts (the default for
  // a model that thinks, gemini-2.5-flash here), or none would stream.
  CHECK(ours_budget.at("generationConfig").at("thinkingConfig").at("thinkingBudget") ==
        budget.at("generationConfig").at("thinkingConfig").at("thinkingBudget"));
  CHECK(ours_budget.at("generationConfig").at("thinkingConfig").at("includeThoughts") == true);
  CHECK(ours_budget.at("generationConfig").at("maxOutputTokens") ==
        budget.at("generationConfig").at("maxOutputTokens"));

  const json::object thoughts = fixture_json("gemini_request_include_thoughts_recorded.json");
  const json::object ours_thoughts = body_for(R"({"api_key":"k","include_thoughts":true})",
                                              R"({"messages":[{"role":"user","content":"x"}]})");
  CHECK(ours_thoughts.at("generationConfig").at("thinkingConfig") ==
        thoughts.at("generationConfig").at("thinkingConfig"));
}

TEST_CASE("a functionCall's id goes back on the call and on its functionResponse") {
  const std::string call_chunk =
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":)"
      R"({"name":"now","args":{"tz":"UTC"},"id":"fc-7Qx2"}}]},"finishReason":"STOP"}],)"
      R"("usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":3,"totalTokenCount":12}})";
  loopback::LoopbackServer server;
  server.enqueue(sse_body("data: " + call_chunk + "\r\n\r\n"));
  server.enqueue(sse_body(fixture("gemini_stream_text_recorded_firebase.sse")));
  auto session = open_session(plan(gemini_config(server.base_url())));
  CHECK(session->execute("What time is it?").status == "success");
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  const json::object second = body_of(requests[1]);
  const json::array &contents = second.at("contents").as_array();
  REQUIRE(contents.size() == 3);
  CHECK(contents[1].at("parts").at(0).at("functionCall") ==
        json::parse(R"({"name":"now","args":{"tz":"UTC"},"id":"fc-7Qx2"})"));
  const json::object &answer = contents[2].at("parts").at(0).at("functionResponse").as_object();
  CHECK(answer.at("id") == "fc-7Qx2");
  CHECK(answer.at("name") == "now");
}

TEST_CASE("thoughts are asked for by default of a model that thinks, and only of one") {
  auto thinking_config = [](std::string_view config_text, std::string_view model) {
    const json::object body =
        gemini::map_request(chat_request(R"({"model":")" + std::string(model) +
                                         R"(","messages":[{"role":"user","content":"x"}]})"),
                            read_config(config_text))
            .body;
    const json::value *generation = body.if_contains("generationConfig");
    const json::value *thinking =
        generation ? generation->as_object().if_contains("thinkingConfig") : nullptr;
    return thinking ? json::serialize(*thinking) : std::string("none");
  };
  CHECK(thinking_config(R"({"api_key":"k"})", "gemini-2.5-flash") == R"({"includeThoughts":true})");
  CHECK(thinking_config(R"({"api_key":"k"})", "models/gemini-2.5-pro") ==
        R"({"includeThoughts":true})");
  CHECK(thinking_config(R"({"api_key":"k"})", "gemini-3-pro-preview") ==
        R"({"includeThoughts":true})");
  CHECK(thinking_config(R"({"api_key":"k"})", "gemini-2.0-flash-thinking-exp") ==
        R"({"includeThoughts":true})");
  // Models that do not think take no thinkingConfig at all.
  CHECK(thinking_config(R"({"api_key":"k"})", "gemini-2.0-flash") == "none");
  CHECK(thinking_config(R"({"api_key":"k"})", "gemini-1.5-pro") == "none");
  // Thinking switched off: nothing to show, so nothing asked.
  CHECK(thinking_config(R"({"api_key":"k","thinking_budget":0})", "gemini-2.5-flash") ==
        R"({"thinkingBudget":0})");
  // The config decides when it says.
  CHECK(thinking_config(R"({"api_key":"k","include_thoughts":false})", "gemini-2.5-flash") ==
        R"({"includeThoughts":false})");
  CHECK(thinking_config(R"({"api_key":"k","include_thoughts":true})", "gemini-2.0-flash") ==
        R"({"includeThoughts":true})");
}
