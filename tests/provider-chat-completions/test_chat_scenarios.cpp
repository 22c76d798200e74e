// Scripted servers: a tool loop with reasoning re-sent in the server's own field, UTF-8 split
// across one-byte chunks, retries and their waits, auth failure, a server that refuses
// stream_options, errors mid-stream and before [DONE], extra headers and body, list_models.
#include "chat_test_support.hpp"
#include "log_capture.hpp"

#include "amplifier_sdk.hpp"

using namespace chat_test;
using namespace std::chrono_literals;

namespace {

// Reasoning in `field`, then a read_file call of `path` (arguments split mid-token).
std::string reasoning_then_call(std::string_view field, std::string_view path) {
  const std::string arguments = std::string(R"({"path": ")") + std::string(path) + "\"}";
  std::string sse = delta_chunk({{"role", "assistant"}, {"content", nullptr}});
  sse += delta_chunk({{field, "I should read "}});
  sse += delta_chunk({{field, "the file."}});
  sse += delta_chunk(
      {{"tool_calls", json::array{{{"index", 0},
                                   {"id", "call_rf"},
                                   {"type", "function"},
                                   {"function", {{"name", "read_file"}, {"arguments", ""}}}}}}});
  sse += delta_chunk(
      {{"tool_calls",
        json::array{{{"index", 0}, {"function", {{"arguments", arguments.substr(0, 7)}}}}}}});
  sse += delta_chunk(
      {{"tool_calls",
        json::array{{{"index", 0}, {"function", {{"arguments", arguments.substr(7)}}}}}}});
  return sse + delta_chunk({}, "tool_calls") + usage_chunk(30, 12) + kDone;
}

loopback::ScriptedResponse error_response(int status, std::string_view message,
                                          loopback::HeaderList headers = {}) {
  return loopback::ScriptedResponse::json(
      status, json::serialize(json::object{{"error", {{"message", message}, {"type", "error"}}}}),
      std::move(headers));
}

}  // namespace

TEST_CASE(
    "a tool loop with reasoning: the second request re-sends it in the server's field, "
    "and the call's arguments byte for byte") {
  for (std::string_view field : {"reasoning_content", "reasoning"}) {
    CAPTURE(field);
    amp_test::TempDir dir("amp-chat");
    amp_test::write_file(dir / "notes.txt", "alpha beta\n");
    loopback::LoopbackServer server;
    server.enqueue(sse_body(reasoning_then_call(field, "notes.txt")));
    server.enqueue(sse_body(text_stream({"It says ", "alpha beta."})));
    auto session =
        open_session(chat_plan(chat_config(server.base_url()),
                               "tools:\n  - module: tool-filesystem\n    config: {working_dir: \"" +
                                   dir.path().string() + "\"}\n"));
    EventRecorder events(session->hooks());
    const auto result = session->execute("what do the notes say?");
    CHECK(result.status == "success");
    CHECK(result.response == "It says alpha beta.");
    CHECK(events.named("tool:post").size() == 1);
    const auto starts = events.named("content_block:start");
    REQUIRE(starts.size() >= 2);
    CHECK(starts[0].data.at("block_type") == "thinking");
    CHECK(starts[1].data.at("block_type") == "tool_call");

    REQUIRE(server.requests().size() == 2);
    const json::object second = request_body(server.requests()[1]);
    const json::array &messages = second.at("messages").as_array();
    REQUIRE(messages.size() == 3);
    const json::object &assistant = messages[1].as_object();
    CHECK(assistant.at(field) == "I should read the file.");
    CHECK(assistant.at("content").is_null());
    CHECK(assistant.at("tool_calls").at(0).at("function").at("arguments") ==
          R"({"path": "notes.txt"})");
    CHECK(messages[2].at("tool_call_id") == "call_rf");
    CHECK(std::string(messages[2].at("content").as_string()).find("alpha beta") !=
          std::string::npos);
    const auto responses = events.named("provider:response");
    REQUIRE(responses.size() == 2);
    CHECK(responses[0].data.at("usage").at("input_tokens") == 30);
  }
}

TEST_CASE("UTF-8 split across one-byte chunks arrives whole") {
  const std::vector<std::string> pieces{"Grüße, ", "世界 ", "🙂!"};
  loopback::LoopbackServer server;
  server.enqueue(sse_body(text_stream(pieces), {1}));
  auto session = open_session(chat_plan(chat_config(server.base_url())));
  EventRecorder events(session->hooks());
  const auto result = session->execute("greet");
  CHECK(result.status == "success");
  CHECK(result.response == "Grüße, 世界 🙂!");
  std::string streamed;
  for (const auto &d : events.named("content_block:delta"))
    streamed += d.data.at("delta").at("text").as_string();
  CHECK(streamed == result.response);
}

TEST_CASE("429 with retry-after is retried after the wait; 401 is authentication, not retried") {
  {
    loopback::LoopbackServer server;
    server.enqueue(error_response(429, "Rate limit reached", {{"retry-after", "1"}}));
    server.enqueue(sse_body(text_stream({"ok"})));
    json::object config = chat_config(server.base_url());
    config["max_retry_delay"] = 0.01;
    auto session = open_session(chat_plan(config));
    const auto started = std::chrono::steady_clock::now();
    auto call = call_chat(*session, user_request("hi"));
    REQUIRE(call->wait_finished(20s));
    CHECK(call->status == AMP_OK);
    CHECK(std::chrono::steady_clock::now() - started >= 1s);
    CHECK(server.requests().size() == 2);
  }
  {
    loopback::LoopbackServer server;
    server.set_default_response(error_response(401, "Invalid API key"));
    json::object config = chat_config(server.base_url());
    config["api_key"] = "sk-local";
    auto session = open_session(chat_plan(config));
    auto call = call_chat(*session, user_request("hi"));
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_ERROR);
    CHECK(call->result().at("kind") == "authentication");
    CHECK(server.requests().size() == 1);
    CHECK(server.requests()[0].header("authorization") == "Bearer sk-local");
  }
}

TEST_CASE(
    "a server that refuses stream_options is asked again without it; the degradation is "
    "recorded") {
  loopback::LoopbackServer server;
  server.enqueue(error_response(400, "Unrecognized request argument supplied: stream_options"));
  server.enqueue(sse_body(text_stream({"fine"})));
  auto session = open_session(chat_plan(chat_config(server.base_url())));
  auto call = call_chat(*session, user_request("hi"));
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  const json::object response = call->result();
  CHECK(response.at("degradations").at(0).at("feature") == "stream_options");
  REQUIRE(server.requests().size() == 2);
  CHECK(request_body(server.requests()[0]).contains("stream_options"));
  CHECK(!request_body(server.requests()[1]).contains("stream_options"));
}

TEST_CASE(
    "a refused field is never silent: the request sent again has its own llm:request, and the "
    "degradation is an event, a warning and the answer's metadata") {
  amp_test::LogCapture log;
  loopback::LoopbackServer server;
  server.enqueue(error_response(400, "Unrecognized request argument supplied: stream_options"));
  server.enqueue(sse_body(text_stream({"fine"})));
  auto session = open_session(chat_plan(chat_config(server.base_url())));
  amp_test::EventRecorder events(session->hooks());
  const auto turn = session->execute("hi");
  REQUIRE(turn.status == "success");
  REQUIRE(server.requests().size() == 2);

  const auto requests = events.named("llm:request");
  REQUIRE(requests.size() == 2);
  CHECK(!requests[0].data.contains("resent"));
  CHECK(std::string(requests[1].data.at("resent").at("reason").as_string())
            .find("the server refused stream_options") != std::string::npos);

  const auto degraded = events.named("provider:degraded");
  REQUIRE(degraded.size() == 1);
  CHECK(degraded[0].data.at("provider") == "provider-chat-completions");
  CHECK(degraded[0].data.at("degradations").at(0).at("feature") == "stream_options");
  CHECK(log.containing("the server refused stream_options").size() == 1);

  // The stored answer keeps it.
  const json::array messages = json::parse(session->coordinator().context_messages()).as_array();
  const json::object &answer = messages.back().as_object();
  CHECK(answer.at("role") == "assistant");
  CHECK(answer.at("metadata").at("degradations").at(0).at("feature") == "stream_options");
}

TEST_CASE(
    "a mid-stream error chunk after content, and a stream cut before [DONE]: typed "
    "errors, not retried") {
  {
    loopback::LoopbackServer server;
    server.set_default_response(sse_body(
        delta_chunk({{"content", "Partial"}}) +
        chunk({{"error", {{"message", "upstream model failed"}, {"type", "server_error"}}}})));
    auto session = open_session(chat_plan(chat_config(server.base_url())));
    auto call = call_chat(*session, user_request("hi"));
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_ERROR);
    CHECK(std::string(call->result().at("message").as_string()).find("upstream model failed") !=
          std::string::npos);
    CHECK(server.requests().size() == 1);
  }
  {
    std::string cut = text_stream({"Hello", " wor"});
    cut.resize(cut.find(kDone));
    loopback::LoopbackServer server;
    server.set_default_response(sse_body(cut));
    auto session = open_session(chat_plan(chat_config(server.base_url())));
    auto call = call_chat(*session, user_request("hi"));
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_ERROR);
    CHECK(call->result().at("kind") == "stream");
    CHECK(server.requests().size() == 1);
  }
}

TEST_CASE("extra_headers and extra_body reach the wire; stream: false; list_models") {
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::json(200, R"({"id":"chatcmpl-1","model":"m",
      "choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",
        "reasoning_content":"brief thought","content":"Whole answer."}}],
      "usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10,
               "prompt_tokens_details":{"cached_tokens":4}}})"));
  server.enqueue(loopback::ScriptedResponse::json(
      200, R"({"object":"list","data":[{"id":"qwen3-8b","object":"model"},{"id":"llama-3.1"}]})"));
  json::object config = chat_config(server.base_url());
  config["extra_headers"] = json::object{{"HTTP-Referer", "https://example.test"}};
  config["extra_body"] = json::object{{"top_k", 20}, {"chat_template_kwargs", {{"x", true}}}};
  auto session = open_session(chat_plan(config));
  json::object request = user_request("hi");
  request["stream"] = false;
  auto call = call_chat(*session, request);
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  const json::object response = call->result();
  CHECK(response.at("content").at(0).at("type") == "thinking");
  CHECK(response.at("content").at(1).at("text") == "Whole answer.");
  CHECK(response.at("usage").at("cache_read_tokens") == 4);
  const auto sent = server.requests().at(0);
  CHECK(sent.header("http-referer") == "https://example.test");
  const json::object body = request_body(sent);
  CHECK(body.at("top_k") == 20);
  CHECK(body.at("stream") == false);
  CHECK(!body.contains("stream_options"));

  const auto *provider = session->coordinator().provider("provider-chat-completions");
  REQUIRE(provider);
  amp::sdk::StringWriter out;
  REQUIRE(provider->table<amp_provider_vtable>()->list_models(provider->instance, &out) == AMP_OK);
  const json::array models = json::parse(out.text).as_array();
  REQUIRE(models.size() == 2);
  CHECK(models[0].at("id") == "qwen3-8b");
  CHECK(server.requests().at(1).target == "/v1/models");
}

TEST_CASE("no model anywhere: a configuration error, nothing sent") {
  loopback::LoopbackServer server;
  json::object config = chat_config(server.base_url());
  config.erase("default_model");
  auto session = open_session(chat_plan(config));
  auto call = call_chat(*session, user_request("hi"));
  REQUIRE(call->wait_finished());
  CHECK(call->result().at("kind") == "configuration");
  CHECK(server.requests().empty());
}
