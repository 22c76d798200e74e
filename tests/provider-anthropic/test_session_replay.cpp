// Every recorded anthropic_* fixture served by the loopback vendor server, in small chunks,
// into a real Session (loop-basic + context-simple + provider-anthropic): kernel events,
// assembled responses, typed errors, the request on the wire, and a whole tool loop whose
// second request carries the first response's thinking signature byte for byte.
#include "anthropic_test_support.hpp"
#include "prompt_caching.hpp"

#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier/stream.hpp"

#include <map>

using namespace anthropic_test;
namespace loopback = amplifier::loopback;

namespace {

const std::vector<std::size_t> kReplayPieces{5, 17, 3, 64};

loopback::ScriptedResponse sse_fixture(std::string_view name) {
  return loopback::ScriptedResponse::sse(fixture(name), kReplayPieces);
}

std::string sse_event(std::string_view type, const json::object &data) {
  return "event: " + std::string(type) + "\ndata: " + json::serialize(data) + "\n\n";
}

// A thinking + tool_use stream in Anthropic's wire format. The thinking text and signature
// are the recorded ones from anthropic_response_thinking_recorded_vercel.json (a real
// signature); the tool input arrives split mid-token like in the recorded tool_use stream.
struct ThinkingToolStream {
  std::string thinking;
  std::string signature;
  std::string sse;
};
ThinkingToolStream thinking_tool_stream(std::string_view tool_name, std::string_view tool_id) {
  const json::object recorded = fixture_json("anthropic_response_thinking_recorded_vercel.json");
  ThinkingToolStream s;
  s.thinking = std::string(recorded.at("content").at(0).at("thinking").as_string());
  s.signature = std::string(recorded.at("content").at(0).at("signature").as_string());
  const std::string half = s.thinking.substr(0, s.thinking.size() / 2);
  const std::string rest = s.thinking.substr(half.size());
  s.sse +=
      sse_event("message_start", {{"type", "message_start"},
                                  {"message",
                                   {{"id", "msg_loop_1"},
                                    {"type", "message"},
                                    {"role", "assistant"},
                                    {"model", "claude-test"},
                                    {"content", json::array{}},
                                    {"usage", {{"input_tokens", 50}, {"output_tokens", 1}}}}}});
  s.sse +=
      sse_event("content_block_start",
                {{"type", "content_block_start"},
                 {"index", 0},
                 {"content_block", {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}});
  for (const std::string &part : {half, rest})
    s.sse += sse_event("content_block_delta",
                       {{"type", "content_block_delta"},
                        {"index", 0},
                        {"delta", {{"type", "thinking_delta"}, {"thinking", part}}}});
  s.sse += sse_event("content_block_delta",
                     {{"type", "content_block_delta"},
                      {"index", 0},
                      {"delta", {{"type", "signature_delta"}, {"signature", s.signature}}}});
  s.sse += sse_event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
  s.sse += sse_event(
      "content_block_start",
      {{"type", "content_block_start"},
       {"index", 1},
       {"content_block",
        {{"type", "tool_use"}, {"id", tool_id}, {"name", tool_name}, {"input", json::object{}}}}});
  for (const char *part : {"", "{\"pa", "th\": \"", ".\"}"})
    s.sse += sse_event("content_block_delta",
                       {{"type", "content_block_delta"},
                        {"index", 1},
                        {"delta", {{"type", "input_json_delta"}, {"partial_json", part}}}});
  s.sse += sse_event("content_block_stop", {{"type", "content_block_stop"}, {"index", 1}});
  s.sse += sse_event("message_delta", {{"type", "message_delta"},
                                       {"delta", {{"stop_reason", "tool_use"}}},
                                       {"usage", {{"output_tokens", 40}}}});
  s.sse += sse_event("message_stop", {{"type", "message_stop"}});
  return s;
}

// The unified blocks a recorded stream stands for, rebuilt from its raw payloads without the
// provider's code: an independent oracle for what the kernel must see.
std::vector<json::object> expected_blocks(const std::vector<json::object> &payloads) {
  std::map<std::int64_t, json::object> open;
  std::map<std::int64_t, std::string> partial_input;
  std::vector<json::object> done;
  for (const auto &p : payloads) {
    const std::string type(p.at("type").as_string());
    if (type == "content_block_start") {
      json::object block = p.at("content_block").as_object();
      if (block.at("type") == "tool_use")
        block = {{"type", "tool_call"}, {"id", block.at("id")}, {"name", block.at("name")}};
      open[p.at("index").as_int64()] = block;
    } else if (type == "content_block_delta") {
      json::object &block = open.at(p.at("index").as_int64());
      const auto &delta = p.at("delta").as_object();
      const std::string delta_type(delta.at("type").as_string());
      auto append = [&](std::string_view field, std::string_view from) {
        std::string text(block[field].is_string() ? block[field].as_string() : "");
        block[field] = text + std::string(delta.at(from).as_string());
      };
      if (delta_type == "text_delta") append("text", "text");
      if (delta_type == "thinking_delta") append("thinking", "thinking");
      if (delta_type == "signature_delta") append("signature", "signature");
      if (delta_type == "input_json_delta")
        partial_input[p.at("index").as_int64()] += delta.at("partial_json").as_string();
    } else if (type == "content_block_stop") {
      const std::int64_t index = p.at("index").as_int64();
      json::object block = open.at(index);
      if (block.at("type") == "tool_call") block["input"] = json::parse(partial_input[index]);
      done.push_back(block);
    }
  }
  return done;
}

json::object request_body(const loopback::RecordedRequest &request) {
  return json::parse(request.body).as_object();
}

std::string thinking_of_events(const std::vector<EventRecorder::Event> &ends) {
  for (const auto &e : ends)
    if (e.data.at("block").at("type") == "thinking")
      return std::string(e.data.at("block").at("signature").as_string());
  return {};
}

}  // namespace

TEST_CASE("recorded text stream through a session: live content_block events, the answer, usage") {
  loopback::LoopbackServer server;
  server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
  auto session = open_session(anthropic_plan(loopback_config(server.base_url())));
  EventRecorder events(session->hooks());
  const auto result = session->execute("list two numbers");
  CHECK(result.status == "success");
  CHECK(result.response == "[12345,67890]");

  const auto starts = events.named("content_block:start");
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].data.at("block_type") == "text");
  std::string streamed;
  for (const auto &d : events.named("content_block:delta"))
    streamed += d.data.at("delta").at("text").as_string();
  CHECK(streamed == "[12345,67890]");
  CHECK(events.named("content_block:delta").size() == 4);
  REQUIRE(events.named("content_block:end").size() == 1);
  CHECK(events.named("content_block:end")[0].data.at("block") ==
        json::parse(R"({"type":"text","text":"[12345,67890]"})"));

  const auto responses = events.named("provider:response");
  REQUIRE(responses.size() == 1);
  CHECK(responses[0].data.at("usage").at("input_tokens") == 135);
  CHECK(responses[0].data.at("usage").at("output_tokens") == 10);
  REQUIRE(events.named("llm:request").size() == 1);
  REQUIRE(events.named("llm:response").size() == 1);
  CHECK(events.named("llm:response")[0].data.at("status") == 200);
  CHECK(!events.named("llm:request")[0].data.contains("request"));  // the summary level
  CHECK(events.named("llm:request:debug").empty());
  CHECK(events.named("llm:request:raw").empty());

  // What went over the wire.
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  const auto &sent = requests[0];
  CHECK(sent.method == "POST");
  CHECK(sent.target == "/v1/messages");
  CHECK(sent.header("x-api-key") == "test-key");
  CHECK(sent.header("anthropic-version") == "2023-06-01");
  const json::object body = request_body(sent);
  CHECK(body.at("model") == "claude-test");
  CHECK(body.at("stream") == true);
  CHECK(body.at("messages").at(0).at("role") == "user");
  // Prompt caching is on by default: the conversation's last user turn is a breakpoint.
  CHECK(body.at("messages").at(0).at("content").at(0).at("cache_control") ==
        json::parse(R"({"type":"ephemeral"})"));
}

TEST_CASE("a misspelt config key is reported with a suggestion; beta_headers reach the wire") {
  LogCapture log;
  loopback::LoopbackServer server;
  server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
  json::object config = loopback_config(server.base_url());
  config["max_token"] = 100;
  config["beta_headers"] = json::array{"interleaved-thinking-2025-05-14", "context-1m-2025-08-07"};
  auto session = open_session(anthropic_plan(config));
  CHECK(!log.containing("did you mean 'max_tokens'").empty());
  CHECK(session->execute("hi").status == "success");
  CHECK(server.requests().at(0).header("anthropic-beta") ==
        "interleaved-thinking-2025-05-14,context-1m-2025-08-07");
}

TEST_CASE("every recorded stream fixture replays into a session") {
  for (const std::string &name : fixtures_with(".sse")) {
    CAPTURE(name);
    if (name.find("error") != std::string::npos) continue;  // the error stream has its own test
    const auto payloads = sse_payloads(fixture(name));
    loopback::LoopbackServer server;
    server.enqueue(sse_fixture(name));
    // A tool call to a tool nobody mounted still gets a result, then the model answers.
    server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
    auto session = open_session(anthropic_plan(loopback_config(server.base_url())));
    EventRecorder events(session->hooks());
    const auto result = session->execute("go");
    CHECK(result.status == "success");

    // The kernel saw one start and one end per recorded content block of the first response,
    // with the block types the recording has.
    std::vector<std::string> recorded_types, seen_types;
    for (const auto &p : payloads)
      if (p.at("type") == "content_block_start") {
        const std::string type(p.at("content_block").at("type").as_string());
        recorded_types.push_back(type == "tool_use" ? "tool_call" : type);
      }
    const auto starts = events.named("content_block:start");
    for (std::size_t i = 0; i < recorded_types.size() && i < starts.size(); ++i)
      seen_types.emplace_back(starts[i].data.at("block_type").as_string());
    CHECK(seen_types == recorded_types);
    // ...and each block's end carries exactly what the recording holds.
    const auto expected = expected_blocks(payloads);
    const auto ends = events.named("content_block:end");
    REQUIRE(ends.size() >= expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      CHECK(ends[i].data.at("block") == expected[i]);

    // Thinking signatures reach the kernel exactly as recorded.
    std::string recorded_signature;
    for (const auto &p : payloads)
      if (p.at("type") == "content_block_delta" && p.at("delta").at("type") == "signature_delta")
        recorded_signature += p.at("delta").at("signature").as_string();
    if (!recorded_signature.empty())
      CHECK(thinking_of_events(events.named("content_block:end")) == recorded_signature);
  }
}

TEST_CASE(
    "a whole tool loop: the second request carries the thinking block and signature byte for "
    "byte") {
  TempDir dir;
  const ThinkingToolStream first = thinking_tool_stream("list_directory", "toolu_loop_1");
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::sse(first.sse, kReplayPieces));
  server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
  json::object config = loopback_config(server.base_url());
  config["extended_thinking"] = true;
  auto session = open_session(
      anthropic_plan(config, "tools:\n  - module: tool-filesystem\n    config: {working_dir: \"" +
                                 dir.path() + "\", allowed_read_paths: [\".\"]}\n"));
  EventRecorder events(session->hooks());
  const auto result = session->execute("what files are here?");
  CHECK(result.status == "success");
  CHECK(result.response == "[12345,67890]");
  REQUIRE(events.named("tool:post").size() == 1);

  REQUIRE(server.requests().size() == 2);
  const json::object second = request_body(server.requests()[1]);
  const auto &messages = second.at("messages").as_array();
  REQUIRE(messages.size() == 3);
  const auto &assistant = messages.at(1).at("content").as_array();
  CHECK(assistant.at(0) == json::object{{"type", "thinking"},
                                        {"thinking", first.thinking},
                                        {"signature", first.signature}});
  CHECK(assistant.at(1).at("type") == "tool_use");
  CHECK(assistant.at(1).at("input") == json::parse(R"({"path":"."})"));
  // The raw bytes on the wire hold the signature unchanged.
  CHECK(server.requests()[1].body.find("\"signature\":\"" + first.signature + "\"") !=
        std::string::npos);
  const auto &results = messages.at(2).at("content").as_array();
  CHECK(results.at(0).at("type") == "tool_result");
  CHECK(results.at(0).at("tool_use_id") == "toolu_loop_1");
  CHECK(std::string(results.at(0).at("content").as_string()).find("marker.txt") !=
        std::string::npos);
  CHECK(second.at("thinking").at("type") == "enabled");
}

TEST_CASE("non-streamed responses (stream: false) give the same ChatResponse shape") {
  for (const std::string &name : fixtures_with(".json")) {
    if (name.find("_response_") == std::string::npos) continue;
    CAPTURE(name);
    const json::object message = fixture_json(name);
    loopback::LoopbackServer server;
    server.enqueue(loopback::ScriptedResponse::json(200, json::serialize(message)));
    auto session = open_session(anthropic_plan(loopback_config(server.base_url())));
    json::object request = user_request("hi");
    request["stream"] = false;
    auto call = complete(*session, request);
    REQUIRE(call->wait_finished());
    REQUIRE(call->status == AMP_OK);
    const json::object response = call->result();
    const auto &recorded = message.at("content").as_array();
    const auto &content = response.at("content").as_array();
    REQUIRE(content.size() == recorded.size());
    for (std::size_t i = 0; i < recorded.size(); ++i) {
      const auto &r = recorded[i].as_object();
      const std::string type(r.at("type").as_string());
      if (type == "thinking") {
        CHECK(content[i].at("thinking") == r.at("thinking"));
        CHECK(content[i].at("signature") == r.at("signature"));
      } else if (type == "redacted_thinking") {
        CHECK(content[i].at("data") == r.at("data"));
      } else if (type == "tool_use") {
        CHECK(content[i].at("type") == "tool_call");
        CHECK(content[i].at("id") == r.at("id"));
        CHECK(content[i].at("input") == r.at("input"));
      } else {
        CHECK(content[i] == r);
      }
    }
    // The events streamed to the caller rebuild the same content.
    amplifier::ResponseAssembler assembler;
    for (const auto &e : call->parsed_events()) assembler.feed(e);
    CHECK(amplifier::to_json(assembler.finish()).at("content") == response.at("content"));
    CHECK(request_body(server.requests().at(0)).at("stream") == false);
    CHECK(server.requests().at(0).header("accept") == "application/json");
  }
}

TEST_CASE("recorded error responses end the call with the right typed error") {
  struct Case {
    const char *fixture;
    const char *kind;
    int status;
    const char *request_id;
  };
  for (const Case &c : {Case{"anthropic_error_400_invalid_request_recorded.json", "invalid_request",
                             400, "req_011CYHyk9NPsBYeGbC9LuDNK"},
                        Case{"anthropic_error_429_rate_limit_recorded.json", "rate_limit", 429,
                             "req_011CYK5n67SytMUxm8WMZUWY"}}) {
    CAPTURE(c.fixture);
    loopback::LoopbackServer server;
    server.set_default_response(recorded_error(c.fixture));
    json::object config = loopback_config(server.base_url());
    config["max_retries"] = 1;
    auto session = open_session(anthropic_plan(config));
    auto call = complete(*session, user_request("hi"));
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_ERROR);
    const json::object error = call->result();
    CHECK(error.at("kind") == c.kind);
    CHECK(error.at("status_code") == c.status);
    CHECK(error.at("request_id") == c.request_id);
    CHECK(error.at("provider") == "provider-anthropic");
    // x-should-retry: false is honoured (one request); true is retried once.
    CHECK(server.requests().size() == (c.status == 400 ? 1u : 2u));
  }
  SUBCASE("404 with the canonical envelope") {
    loopback::LoopbackServer server;
    server.set_default_response(
        loopback::ScriptedResponse::json(404, fixture("anthropic_error_404_docs.json")));
    auto session = open_session(anthropic_plan(loopback_config(server.base_url())));
    auto call = complete(*session, user_request("hi"));
    REQUIRE(call->wait_finished());
    CHECK(call->result().at("kind") == "not_found");
    CHECK(server.requests().size() == 1);
  }
}

TEST_CASE(
    "the recorded rate-limit headers and the raw payloads reach llm:response, the key stays out") {
  const json::object recorded = fixture_json("anthropic_headers_ratelimit_recorded.json");
  loopback::ScriptedResponse response = sse_fixture("anthropic_stream_text_recorded.sse");
  for (const auto &field : recorded.at("headers").as_object()) {
    const std::string key(field.key());
    if (key.rfind("anthropic-ratelimit-", 0) == 0)
      response.headers.emplace_back(key, std::string(field.value().as_string()));
  }
  loopback::LoopbackServer server;
  server.enqueue(response);
  json::object config = loopback_config(server.base_url());
  config["raw"] = true;
  config["api_key"] = "sk-ant-very-secret";
  auto session = open_session(anthropic_plan(config));
  EventRecorder events(session->hooks());
  CHECK(session->execute("hi").status == "success");
  CHECK(server.requests().at(0).header("x-api-key") == "sk-ant-very-secret");

  const auto requests = events.named("llm:request:raw");
  REQUIRE(requests.size() == 1);
  const json::object raw_request = requests[0].data.at("request").as_object();
  CHECK(raw_request.at("headers").at("x-api-key") == "[REDACTED]");
  CHECK(raw_request.at("body").at("messages").at(0).at("role") == "user");
  CHECK(json::serialize(requests[0].data).find("sk-ant-very-secret") == std::string::npos);

  const auto responses = events.named("llm:response:raw");
  REQUIRE(responses.size() == 1);
  const json::object raw_response = responses[0].data.at("response").as_object();
  CHECK(raw_response.at("headers").at("anthropic-ratelimit-requests-remaining") == "49");
  CHECK(raw_response.at("body").as_array().size() ==
        sse_payloads(fixture("anthropic_stream_text_recorded.sse")).size());
}

TEST_CASE(
    "a repaired conversation: provider:tool_sequence_repaired, the synthetic result on the wire, "
    "degradations") {
  LogCapture log;
  loopback::LoopbackServer server;
  server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
  json::object config = loopback_config(server.base_url());
  config["extended_thinking"] = true;
  auto session = open_session(anthropic_plan(config));
  EventRecorder events(session->hooks());
  const json::value request = json::parse(R"({
      "messages":[
        {"role":"user","content":"run it"},
        {"role":"assistant","content":[{"type":"tool_call","id":"call_lost","name":"bash","input":{"cmd":"ls"}}]},
        {"role":"tool","tool_call_id":"call_stray","content":"from nowhere"},
        {"role":"user","content":"well?"}],
      "temperature":0.1,
      "response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}}})");
  auto call = complete(*session, request);
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);

  const auto repaired = events.named("provider:tool_sequence_repaired");
  REQUIRE(repaired.size() == 1);
  CHECK(repaired[0].data.at("repair_count") == 1);
  CHECK(repaired[0].data.at("repairs").at(0) ==
        json::parse(R"({"tool_call_id":"call_lost","tool_name":"bash"})"));
  CHECK(!log.containing("call_stray").empty());

  const json::object body = request_body(server.requests().at(0));
  const auto &messages = body.at("messages").as_array();
  REQUIRE(messages.size() == 3);
  CHECK(messages.at(2).at("content").at(0).at("tool_use_id") == "call_lost");
  CHECK(messages.at(2).at("content").at(0).at("is_error") == true);
  CHECK(json::serialize(body).find("call_stray") == std::string::npos);
  CHECK(!body.contains("temperature"));

  std::vector<std::string> features;
  const json::object response = call->result();
  for (const auto &d : response.at("degradations").as_array())
    features.emplace_back(d.at("feature").as_string());
  CHECK(features == std::vector<std::string>{"temperature", "response_format"});
}

// Prompt caching across turns: what the first request cached is, byte for byte, the prefix of
// the second (tools, then the conversation; the system prompt's breakpoint is
// test_request_mapping's), and the breakpoints sit on the same blocks (so the second request reads what the
// first wrote). With cache_ttl 1h every breakpoint says so and the beta is sent.
TEST_CASE("the second turn's request starts with the first's cached prefix, byte for byte") {
  for (const std::string ttl : {"5m", "1h"}) {
    CAPTURE(ttl);
    loopback::LoopbackServer server;
    server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
    server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
    json::object config = loopback_config(server.base_url());
    config["cache_ttl"] = ttl;
    auto session =
        open_session(anthropic_plan(config, "tools:\n  - module: tool-filesystem\n"));
    REQUIRE(session->execute("First question, with enough words to be worth caching.").status ==
            "success");
    REQUIRE(session->execute("Second question.").status == "success");
    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    const json::object first = json::parse(requests[0].body).as_object();
    const json::object second = json::parse(requests[1].body).as_object();

    json::object marker{{"type", "ephemeral"}};
    if (ttl == "1h") marker["ttl"] = "1h";
    const json::array &first_messages = first.at("messages").as_array();
    const json::array &second_messages = second.at("messages").as_array();
    // The first request (the plan has no system prompt): the tool list, the prompt.
    CHECK(!first.contains("system"));
    CHECK(first.at("tools").as_array().back().at("cache_control") == marker);
    CHECK(first_messages.back().at("content").as_array().back().at("cache_control") == marker);
    CHECK(count_cache_breakpoints(first) == 2);
    CHECK(count_cache_breakpoints(second) == 3);  // and the second prompt

    // The second begins with exactly what the first cached: the tools, the first prompt.
    CHECK(json::serialize(second.at("tools")) == json::serialize(first.at("tools")));
    REQUIRE(second_messages.size() == first_messages.size() + 2);
    for (std::size_t i = 0; i < first_messages.size(); ++i)
      CHECK(json::serialize(second_messages[i]) == json::serialize(first_messages[i]));
    CHECK(second_messages.back().at("content").as_array().back().at("cache_control") == marker);

    const std::string beta = requests[0].header("anthropic-beta").value_or("");
    CHECK((beta.find("extended-cache-ttl-2025-04-11") != std::string::npos) == (ttl == "1h"));
  }
}

// The Amplifier issue: an ephemeral injection (hooks-todo-reminder's, each request) merged
// into the last user message moved the cache breakpoint onto text the next request does not
// have. It travels in a block of its own after the breakpoint, so the next request still
// begins with exactly what this one cached.
TEST_CASE("an ephemeral injection never moves the cached prefix") {
  loopback::LoopbackServer server;
  server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
  server.enqueue(sse_fixture("anthropic_stream_text_recorded.sse"));
  auto session = open_session(anthropic_plan(loopback_config(server.base_url())));
  // What hooks-todo-reminder answers before each request while a todo item is open.
  session->hooks().register_handler("provider:request", [](std::string_view, const json::object &) {
    return amplifier::HookResult::from_json(json::parse(
        R"({"action":"inject_context","context_injection":"<system-reminder>todo: write the tests</system-reminder>",)"
        R"("context_injection_role":"user","ephemeral":true})"));
  });
  REQUIRE(session->execute("First question.").status == "success");
  REQUIRE(session->execute("Second question.").status == "success");
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  const json::object first = json::parse(requests[0].body).as_object();
  const json::object second = json::parse(requests[1].body).as_object();
  CAPTURE(requests[0].body);
  const json::array &prompt = first.at("messages").as_array().back().at("content").as_array();
  REQUIRE(prompt.size() == 2);  // the prompt, then the request-only reminder
  CHECK(prompt[0].at("text") == "First question.");
  CHECK(prompt[0].as_object().contains("cache_control"));
  CHECK(!prompt[1].as_object().contains("cache_control"));
  CHECK(requests[0].body.find("__amp_ephemeral") == std::string::npos);
  // The second request's first message is byte for byte what the first one cached.
  CHECK(json::serialize(second.at("messages").at(0).at("content").at(0)) ==
        json::serialize(prompt[0]));
}
