// provider-ollama against a loopback Ollama: the recorded docs lines, a tool loop with
// thinking, errors mid-stream and before the done line, a missing model (and auto_pull),
// retries, UTF-8 split across one-byte pieces, list_models with context windows, config.
#include "kernel_calls.hpp"
#include "temp_files.hpp"
#include "vendor_test_support.hpp"

#include "ollama_config.hpp"
#include "ollama_provider.hpp"

#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier_sdk.hpp"

#include <map>

using namespace amp_test;
using namespace std::chrono_literals;
namespace loopback = amplifier::loopback;
namespace ms = amplifier::module_support;

namespace {

// One /api/chat line.
std::string line(const json::object &message, bool done = false, json::object extra = {}) {
  json::object out{{"model", "qwen3"},
                   {"created_at", "2025-07-07T20:22:19Z"},
                   {"message", message},
                   {"done", done}};
  for (auto &field : extra) out[field.key()] = field.value();
  return json::serialize(out) + "\n";
}

std::string done_line(std::string_view reason = "stop") {
  return line({{"role", "assistant"}, {"content", ""}}, true,
              {{"done_reason", reason},
               {"prompt_eval_count", 20},
               {"eval_count", 7},
               {"total_duration", 5000000},
               {"eval_duration", 3000000}});
}

std::string text_lines(const std::vector<std::string> &pieces) {
  std::string body;
  for (const auto &piece : pieces) body += line({{"role", "assistant"}, {"content", piece}});
  return body + done_line();
}

loopback::ScriptedResponse ndjson(std::string body, std::vector<std::size_t> pieces = {5, 17, 3}) {
  return loopback::ScriptedResponse::ndjson(std::move(body), std::move(pieces));
}

json::object ollama_config(const std::string &base_url) {
  return json::object{{"host", base_url},
                      {"default_model", "qwen3"},
                      {"min_retry_delay", 0.01},
                      {"max_retry_delay", 0.05},
                      {"max_retries", 2}};
}

std::string plan(const json::object &config, const std::string &rest = {}) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
         "  - module: provider-ollama\n    config: " +
         json::serialize(config) + "\n" + rest;
}

json::object user_request(std::string_view prompt) {
  return json::object{
      {"messages", json::array{json::object{{"role", "user"}, {"content", prompt}}}}};
}

// The requests to /api/chat (the provider also asks /api/show at mount, for the context window).
std::vector<loopback::RecordedRequest> chats(const loopback::LoopbackServer &server) {
  std::vector<loopback::RecordedRequest> out;
  for (auto &request : server.requests())
    if (request.target == "/api/chat") out.push_back(std::move(request));
  return out;
}

// What /api/show answers at mount: the default model's architecture and context length.
loopback::ScriptedResponse show(std::string_view architecture, int context_length) {
  return loopback::ScriptedResponse::json(
      200, json::serialize(
               json::object{{"model_info",
                             {{"general.architecture", architecture},
                              {std::string(architecture) + ".context_length", context_length}}}}));
}

json::object body_of(const loopback::RecordedRequest &request) {
  return json::parse(request.body).as_object();
}

std::shared_ptr<CallRecorder> call(amplifier::Session &session, const json::object &request) {
  return amp_test::complete(session, "provider-ollama", request);
}

}  // namespace

TEST_CASE("the recorded docs stream: text, usage from the done line, durations in metadata") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  server.enqueue(ndjson(fixture("ollama_chat_stream_docs.ndjson"), {1}));
  auto session = open_session(plan(ollama_config(server.base_url())));
  EventRecorder events(session->hooks());
  auto recorder = call(*session, user_request("why is the sky blue?"));
  REQUIRE(recorder->wait_finished());
  REQUIRE(recorder->status == AMP_OK);
  const json::object response = recorder->result();
  CHECK(response.at("content").at(0) == json::parse(R"({"type":"text","text":"The"})"));
  CHECK(response.at("usage").at("input_tokens") == 26);
  CHECK(response.at("usage").at("output_tokens") == 282);
  CHECK(response.at("metadata").at("timings").at("total_ms").as_double() ==
        doctest::Approx(4883.583458));
  const auto sent = chats(server).at(0);
  CHECK(sent.target == "/api/chat");
  const json::object body = body_of(sent);
  CHECK(body.at("model") == "qwen3");
  CHECK(body.at("stream") == true);
  CHECK(body.at("messages").at(0) ==
        json::parse(R"({"role":"user","content":"why is the sky blue?"})"));
  CHECK(!body.contains("think"));
}

TEST_CASE(
    "a tool loop with thinking: the recorded call without an id gets a stable one; the "
    "second request sends thinking back, arguments as an object, tool_name on the result") {
  TempDir dir("amp-ollama");
  write_file(dir / "notes.txt", "gamma delta\n");
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  // Thinking, then the docs' tool-call lines with the call renamed to a mounted tool.
  std::string first = line({{"role", "assistant"}, {"content", ""}, {"thinking", "I will "}});
  first += line({{"role", "assistant"}, {"content", ""}, {"thinking", "read it."}});
  first +=
      line({{"role", "assistant"},
            {"content", ""},
            {"tool_calls",
             json::array{{{"function",
                           {{"name", "read_file"}, {"arguments", {{"path", "notes.txt"}}}}}}}}});
  first += done_line();
  server.enqueue(ndjson(first));
  server.enqueue(ndjson(text_lines({"The notes say ", "gamma delta."})));
  json::object config = ollama_config(server.base_url());
  config["enable_thinking"] = true;
  config["keep_alive"] = "10m";
  config["options"] = json::object{{"num_ctx", 8192}};
  auto session = open_session(
      plan(config, "tools:\n  - module: tool-filesystem\n    config: {working_dir: \"" +
                       dir.path().string() + "\"}\n"));
  EventRecorder events(session->hooks());
  const auto result = session->execute("what do the notes say?");
  CHECK(result.status == "success");
  CHECK(result.response == "The notes say gamma delta.");
  REQUIRE(events.named("tool:post").size() == 1);
  CHECK(events.named("tool:post")[0].data.at("tool_call_id") == "call_1");

  REQUIRE(chats(server).size() == 2);
  const json::object first_body = body_of(chats(server)[0]);
  CHECK(first_body.at("think") == true);
  CHECK(first_body.at("keep_alive") == "10m");
  CHECK(first_body.at("options") == json::parse(R"({"num_ctx":8192})"));
  CHECK(first_body.at("tools").at(0).at("function").at("name") == "read_file");
  const json::object second = body_of(chats(server)[1]);
  const json::array &messages = second.at("messages").as_array();
  REQUIRE(messages.size() == 3);
  CHECK(messages[1] == json::parse(R"({"role":"assistant","content":"","thinking":"I will read it.",
      "tool_calls":[{"function":{"name":"read_file","arguments":{"path":"notes.txt"}}}]})"));
  CHECK(messages[2].at("role") == "tool");
  CHECK(messages[2].at("tool_name") == "read_file");
  CHECK(std::string(messages[2].at("content").as_string()).find("gamma delta") !=
        std::string::npos);
}

TEST_CASE("the recorded tool-call lines: a call without id, finish_reason tool_calls") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  server.enqueue(ndjson(fixture("ollama_chat_stream_tool_calls_docs.ndjson"), {1}));
  auto session = open_session(plan(ollama_config(server.base_url())));
  auto recorder = call(*session, user_request("weather in Tokyo?"));
  REQUIRE(recorder->wait_finished());
  REQUIRE(recorder->status == AMP_OK);
  const json::object response = recorder->result();
  CHECK(response.at("finish_reason") == "tool_calls");
  CHECK(response.at("content").at(0).at("name") == "get_weather");
  CHECK(response.at("content").at(0).at("id") == "call_0");
  CHECK(response.at("content").at(0).at("input") == json::parse(R"({"city":"Tokyo"})"));
  CHECK(response.at("usage").at("input_tokens") == 169);
}

TEST_CASE("parallel calls in one line, with and without ids: results go back in call order") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  std::string first = line(
      {{"role", "assistant"},
       {"content", ""},
       {"tool_calls",
        json::array{{{"id", "call_srv_a"},
                     {"function", {{"index", 0}, {"name", "alpha"}, {"arguments", {{"n", 1}}}}}},
                    {{"function", {{"name", "beta"}, {"arguments", json::object{}}}}}}}});
  server.enqueue(ndjson(first + done_line()));
  server.enqueue(ndjson(text_lines({"done"})));
  auto session = open_session(plan(ollama_config(server.base_url())));
  EventRecorder events(session->hooks());
  CHECK(session->execute("go").status == "success");
  CHECK(events.named("tool:error").size() == 2);  // neither tool is mounted
  const json::object second = body_of(chats(server).at(1));
  const json::array &messages = second.at("messages").as_array();
  REQUIRE(messages.size() == 4);
  CHECK(messages[1].at("tool_calls").as_array().size() == 2);
  CHECK(messages[2].at("tool_name") == "alpha");
  CHECK(messages[3].at("tool_name") == "beta");
}

TEST_CASE("UTF-8 split across one-byte pieces arrives whole") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  server.enqueue(ndjson(text_lines({"Grüße, ", "世界 ", "🙂"}), {1}));
  auto session = open_session(plan(ollama_config(server.base_url())));
  CHECK(session->execute("hi").response == "Grüße, 世界 🙂");
}

TEST_CASE(
    "errors: a bare error line mid-stream, a stream cut before its done line, a 404 "
    "naming the model") {
  {
    // The recorded error line, after content this time.
    std::string body = text_lines({"Yes"});
    body.resize(body.rfind(done_line()));
    std::string recorded = fixture("ollama_generate_stream_midstream_error_docs.ndjson");
    body += recorded.substr(recorded.find("{\"error\""));
    loopback::LoopbackServer server;
    server.set_default_response(ndjson(body));
    auto session = open_session(plan(ollama_config(server.base_url())));
    auto recorder = call(*session, user_request("hi"));
    REQUIRE(recorder->wait_finished());
    CHECK(recorder->status == AMP_ERROR);
    CHECK(std::string(recorder->result().at("message").as_string())
              .find("an error was encountered while running the model") != std::string::npos);
    CHECK(chats(server).size() == 1);  // content had reached the user
  }
  {
    std::string body = text_lines({"Half an ans"});
    body.resize(body.rfind(done_line()));
    loopback::LoopbackServer server;
    server.set_default_response(ndjson(body));
    auto session = open_session(plan(ollama_config(server.base_url())));
    auto recorder = call(*session, user_request("hi"));
    REQUIRE(recorder->wait_finished());
    CHECK(recorder->result().at("kind") == "stream");
    CHECK(std::string(recorder->result().at("message").as_string()).find("done line") !=
          std::string::npos);
  }
  {
    loopback::LoopbackServer server;
    server.set_default_response(loopback::ScriptedResponse::json(
        404, R"({"error":"model \"qwen3\" not found, try pulling it first"})"));
    auto session = open_session(plan(ollama_config(server.base_url())));
    auto recorder = call(*session, user_request("hi"));
    REQUIRE(recorder->wait_finished());
    CHECK(recorder->result().at("kind") == "not_found");
    CHECK(std::string(recorder->result().at("message").as_string()).find("qwen3") !=
          std::string::npos);
    CHECK(chats(server).size() == 1);
  }
}

TEST_CASE("auto_pull: a missing model is pulled with progress events, then the chat goes") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  server.enqueue(loopback::ScriptedResponse::json(404, R"({"error":"model \"qwen3\" not found"})"));
  std::string progress = "{\"status\":\"pulling manifest\"}\n";
  for (int done = 0; done <= 100; done += 10)
    progress +=
        "{\"status\":\"pulling abc123\",\"digest\":\"sha256:abc123\",\"total\":1000,"
        "\"completed\":" +
        std::to_string(done * 10) + "}\n";
  progress += "{\"status\":\"success\"}\n";
  server.enqueue(ndjson(progress));
  server.enqueue(ndjson(text_lines({"Ready."})));
  json::object config = ollama_config(server.base_url());
  config["auto_pull"] = true;
  auto session = open_session(plan(config));
  EventRecorder events(session->hooks());
  auto recorder = call(*session, user_request("hi"));
  REQUIRE(recorder->wait_finished());
  REQUIRE(recorder->status == AMP_OK);
  const auto requests = server.requests();  // /api/show at mount, then these
  REQUIRE(requests.size() == 4);
  CHECK(requests[1].target == "/api/chat");
  CHECK(requests[2].target == "/api/pull");
  CHECK(body_of(requests[2]) == json::parse(R"({"model":"qwen3","stream":true})"));
  CHECK(requests[3].target == "/api/chat");
  const auto pulls = events.named("provider:model_pull");
  REQUIRE(pulls.size() >= 3);
  CHECK(pulls.front().data.at("status") == "pulling manifest");
  CHECK(pulls.back().data.at("status") == "success");
}

TEST_CASE("429 is retried; hosted Ollama's 401 is authentication with the Bearer key") {
  {
    loopback::LoopbackServer server;
    server.enqueue(show("qwen3", 40960));
    server.enqueue(loopback::ScriptedResponse::json(429, R"({"error":"too many requests"})"));
    server.enqueue(ndjson(text_lines({"ok"})));
    auto session = open_session(plan(ollama_config(server.base_url())));
    auto recorder = call(*session, user_request("hi"));
    REQUIRE(recorder->wait_finished());
    CHECK(recorder->status == AMP_OK);
    CHECK(chats(server).size() == 2);
  }
  {
    loopback::LoopbackServer server;
    server.set_default_response(
        loopback::ScriptedResponse::json(401, R"({"error":"unauthorized"})"));
    json::object config = ollama_config(server.base_url());
    config["api_key"] = "hosted-key";
    auto session = open_session(plan(config));
    auto recorder = call(*session, user_request("hi"));
    REQUIRE(recorder->wait_finished());
    CHECK(recorder->result().at("kind") == "authentication");
    CHECK(chats(server).at(0).header("authorization") == "Bearer hosted-key");
    CHECK(chats(server).size() == 1);
  }
}

TEST_CASE(
    "the default model's context window from /api/show reaches ProviderInfo; "
    "list_models reports each model's") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));  // asked once, at mount
  server.enqueue(loopback::ScriptedResponse::json(
      200, R"({"models":[{"name":"qwen3:latest","size":5},{"name":"llama3.2:latest"}]})"));
  server.enqueue(show("qwen3", 40960));
  server.enqueue(show("llama", 131072));
  auto session = open_session(plan(ollama_config(server.base_url())));
  const auto *provider = session->coordinator().provider("provider-ollama");
  REQUIRE(provider);
  amp::sdk::StringWriter info;
  REQUIRE(provider->table<amp_provider_vtable>()->get_info(provider->instance, &info) == AMP_OK);
  CHECK(json::parse(info.text).at("defaults").at("context_window") == 40960);
  amp::sdk::StringWriter out;
  REQUIRE(provider->table<amp_provider_vtable>()->list_models(provider->instance, &out) == AMP_OK);
  const json::array models = json::parse(out.text).as_array();
  REQUIRE(models.size() == 2);
  CHECK(models[0].at("context_window") == 40960);
  CHECK(models[1].at("context_window") == 131072);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 4);  // the default model's window was remembered
  CHECK(requests[0].target == "/api/show");
  CHECK(body_of(requests[0]) == json::parse(R"({"model":"qwen3"})"));
  CHECK(requests[1].target == "/api/tags");
  CHECK(body_of(requests[2]) == json::parse(R"({"model":"qwen3:latest"})"));
}

TEST_CASE("config: OLLAMA_HOST as Ollama reads it") {
  CHECK(ollama::normalized_host("0.0.0.0:11434") == "http://0.0.0.0:11434");
  CHECK(ollama::normalized_host("example.com") == "http://example.com:11434");
  CHECK(ollama::normalized_host("https://ollama.example.com/") == "https://ollama.example.com");
  auto env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "OLLAMA_HOST") return std::string("127.0.0.1:9999");
    return std::nullopt;
  };
  ms::ConfigReader reader(std::string_view("{}"), "provider-ollama config");
  CHECK(ollama::OllamaConfig::read(reader, env).host == "http://127.0.0.1:9999");
}

TEST_CASE("the recorded non-streaming error body is a typed error carrying its message") {
  loopback::LoopbackServer server;
  server.enqueue(show("qwen3", 40960));
  server.set_default_response(
      loopback::ScriptedResponse::json(500, fixture("ollama_error_docs.json")));
  json::object config = ollama_config(server.base_url());
  config["max_retries"] = 0;
  auto session = open_session(plan(config));
  auto recorder = call(*session, user_request("hi"));
  REQUIRE(recorder->wait_finished());
  CHECK(recorder->result().at("kind") == "unavailable");
  CHECK(std::string(recorder->result().at("message").as_string())
            .find("the model failed to generate a response") != std::string::npos);
}
