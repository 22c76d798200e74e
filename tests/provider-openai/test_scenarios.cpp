// Scenarios the recordings do not cover, scripted on the loopback vendor server: continuation
// of answers cut off by max_output_tokens, retries and their waits, authentication and
// context-length errors, errors after content, parallel calls, arguments that are not JSON,
// list_models, and a provider with no key.
#include "openai_test_support.hpp"

#include "amplifier_sdk.hpp"

using namespace openai_test;
using namespace std::chrono_literals;

namespace {

// A stream of one text answer, cut into `pieces` deltas; `status` completed or incomplete.
std::string text_stream(std::string_view response_id, const std::vector<std::string> &pieces,
                        std::string_view status = "completed") {
  std::string full;
  for (const auto &p : pieces) full += p;
  std::string sse;
  sse += sse_event(
      {{"type", "response.created"}, {"response", {{"id", response_id}, {"model", "gpt-test"}}}});
  sse += sse_event({{"type", "response.output_item.added"},
                    {"output_index", 0},
                    {"item", {{"type", "message"}, {"id", "msg_1"}, {"content", json::array{}}}}});
  sse += sse_event({{"type", "response.content_part.added"},
                    {"output_index", 0},
                    {"content_index", 0},
                    {"part", {{"type", "output_text"}, {"text", ""}}}});
  for (const auto &p : pieces)
    sse += sse_event({{"type", "response.output_text.delta"},
                      {"output_index", 0},
                      {"content_index", 0},
                      {"delta", p},
                      {"obfuscation", "xYz"}});
  const json::object item{{"type", "message"},
                          {"id", "msg_1"},
                          {"content", json::array{{{"type", "output_text"}, {"text", full}}}}};
  sse += sse_event({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", item}});
  json::object response{
      {"id", response_id},
      {"model", "gpt-test"},
      {"status", status},
      {"output", json::array{item}},
      {"usage", {{"input_tokens", 10}, {"output_tokens", 5}, {"total_tokens", 15}}}};
  if (status == "incomplete")
    response["incomplete_details"] = json::object{{"reason", "max_output_tokens"}};
  sse += sse_event({{"type", status == "incomplete" ? "response.incomplete" : "response.completed"},
                    {"response", response}});
  return sse;
}

// A stream of function calls {call_id, name, arguments}, in one response.
std::string calls_stream(const std::vector<std::array<std::string, 3>> &calls) {
  std::string sse;
  json::array output;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto &[call_id, name, arguments] = calls[i];
    json::object item{{"type", "function_call"},
                      {"id", "fc_" + call_id},
                      {"call_id", call_id},
                      {"name", name},
                      {"arguments", ""}};
    sse += sse_event({{"type", "response.output_item.added"}, {"output_index", i}, {"item", item}});
    sse += sse_event({{"type", "response.function_call_arguments.delta"},
                      {"output_index", i},
                      {"delta", arguments}});
    item["arguments"] = arguments;
    sse += sse_event({{"type", "response.output_item.done"}, {"output_index", i}, {"item", item}});
    output.push_back(item);
  }
  sse += sse_event(
      {{"type", "response.completed"},
       {"response", {{"id", "resp_calls"}, {"status", "completed"}, {"output", output}}}});
  return sse;
}

loopback::ScriptedResponse openai_error(int status, std::string_view code, std::string_view message,
                                        loopback::HeaderList headers = {}) {
  return loopback::ScriptedResponse::json(
      status,
      json::serialize(json::object{
          {"error", {{"message", message}, {"type", "invalid_request_error"}, {"code", code}}}}),
      std::move(headers));
}

std::shared_ptr<CallRecorder> call_openai(amplifier::Session &session, json::object request) {
  return amp_test::complete(session, "provider-openai", request);
}

}  // namespace

TEST_CASE("an answer cut off by max_output_tokens is continued with the output so far") {
  loopback::LoopbackServer server;
  server.enqueue(sse_body(text_stream("resp_1", {"Hello, ", "wor"}, "incomplete")));
  server.enqueue(sse_body(text_stream("resp_2", {"ld!"})));
  auto session = open_session(openai_plan(openai_config(server.base_url())));
  EventRecorder events(session->hooks());
  const auto result = session->execute("greet");
  CHECK(result.status == "success");
  CHECK(result.response == "Hello, world!");  // the rounds' text blocks, read as one answer

  REQUIRE(server.requests().size() == 2);
  const json::object second = request_body(server.requests()[1]);
  CHECK(!second.contains("previous_response_id"));
  const auto &input = second.at("input").as_array();
  REQUIRE(input.size() == 2);
  CHECK(input[0].at("role") == "user");
  CHECK(input[1] ==
        json::parse(
            R"({"role":"assistant","content":[{"type":"output_text","text":"Hello, wor"}]})"));

  const auto continuations = events.named("provider:continuation");
  REQUIRE(continuations.size() == 1);
  CHECK(continuations[0].data.at("continuation") == 1);
  CHECK(continuations[0].data.at("response_id") == "resp_1");
  const auto responses = events.named("provider:response");
  REQUIRE(responses.size() == 1);  // one response, merged
  CHECK(responses[0].data.at("usage").at("output_tokens") == 10);
  // Block indices go on across the rounds: the kernel saw two text blocks, 0 and 1.
  const auto starts = events.named("content_block:start");
  REQUIRE(starts.size() == 2);
  CHECK(starts[1].data.at("block_index") == 1);
}

TEST_CASE("with store: true a continuation sends previous_response_id and nothing before it") {
  loopback::LoopbackServer server;
  server.enqueue(sse_body(text_stream("resp_stored", {"Part one"}, "incomplete")));
  server.enqueue(sse_body(text_stream("resp_next", {" and two."})));
  json::object config = openai_config(server.base_url());
  config["store"] = true;
  auto session = open_session(openai_plan(config));
  json::object request = user_request("a long story");
  request["messages"].as_array().insert(
      request["messages"].as_array().begin(),
      json::object{{"role", "system"}, {"content", "You tell stories."}});
  auto call = call_openai(*session, request);
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  const json::object response = call->result();
  CHECK(response.at("metadata").at("continuations") == 1);
  CHECK(response.at("metadata").at("response_id") == "resp_next");
  CHECK(response.at("content").as_array().size() == 2);
  CHECK(response.at("finish_reason") == "stop");

  const json::object second = request_body(server.requests().at(1));
  CHECK(second.at("previous_response_id") == "resp_stored");
  CHECK(second.at("input") == json::array{});
  CHECK(second.at("instructions") == "You tell stories.");  // instructions do not carry over
  CHECK(!second.contains("include"));
}

TEST_CASE("continuations stop at max_continuations: the answer ends with finish_reason length") {
  loopback::LoopbackServer server;
  server.set_default_response(sse_body(text_stream("resp_cut", {"more"}, "incomplete")));
  json::object config = openai_config(server.base_url());
  config["max_continuations"] = 2;
  auto session = open_session(openai_plan(config));
  auto call = call_openai(*session, user_request("go on forever"));
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  const json::object response = call->result();
  CHECK(response.at("finish_reason") == "length");
  CHECK(response.at("metadata").at("continuations") == 2);
  CHECK(response.at("metadata").at("incomplete_reason") == "max_output_tokens");
  CHECK(server.requests().size() == 3);
}

TEST_CASE("429 with retry-after-ms: the server's wait wins over max_retry_delay") {
  loopback::LoopbackServer server;
  server.enqueue(
      openai_error(429, "rate_limit_exceeded", "Rate limit reached", {{"retry-after-ms", "400"}}));
  server.enqueue(sse_body(text_stream("resp_ok", {"fine"})));
  json::object config = openai_config(server.base_url());
  config["max_retry_delay"] = 0.02;
  auto session = open_session(openai_plan(config));
  EventRecorder events(session->hooks());
  const auto started = std::chrono::steady_clock::now();
  auto call = call_openai(*session, user_request("hi"));
  REQUIRE(call->wait_finished());
  const auto elapsed = std::chrono::steady_clock::now() - started;
  CHECK(call->status == AMP_OK);
  CHECK(elapsed >= 400ms);
  REQUIRE(server.requests().size() == 2);
  const auto retries = events.named("provider:retry");
  REQUIRE(retries.size() == 1);
  CHECK(retries[0].data.at("provider") == "provider-openai");
}

TEST_CASE("401: authentication, not retried, the key never in the message") {
  loopback::LoopbackServer server;
  server.set_default_response(
      openai_error(401, "invalid_api_key", "Incorrect API key provided: sk-test."));
  auto session = open_session(openai_plan(openai_config(server.base_url())));
  auto call = call_openai(*session, user_request("hi"));
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_ERROR);
  const json::object error = call->result();
  CHECK(error.at("kind") == "authentication");
  CHECK(error.at("status_code") == 401);
  CHECK(std::string(error.at("message").as_string()).find("OpenAI HTTP 401 invalid_api_key") !=
        std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("context_length_exceeded is the context_length kind and never retried") {
  loopback::LoopbackServer server;
  server.set_default_response(openai_error(
      400, "context_length_exceeded",
      "Your input exceeds the context window of this model. Please adjust your input and try "
      "again."));
  auto session = open_session(openai_plan(openai_config(server.base_url())));
  auto call = call_openai(*session, user_request("a very long prompt"));
  REQUIRE(call->wait_finished());
  const json::object error = call->result();
  CHECK(error.at("kind") == "context_length");
  CHECK(error.at("retryable") == false);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("an error after content has reached the user is not retried") {
  std::string sse = text_stream("resp_x", {"Partial answer"});
  sse.resize(sse.find("event: response.output_item.done"));
  sse += sse_event({{"type", "error"},
                    {"code", "server_error"},
                    {"message", "The server had an error while processing your request."}});
  loopback::LoopbackServer server;
  server.set_default_response(sse_body(sse));
  auto session = open_session(openai_plan(openai_config(server.base_url())));
  EventRecorder events(session->hooks());
  const auto result = session->execute("hi");
  CHECK(result.status == "error");
  CHECK(result.error.at("kind") == "unavailable");
  CHECK(server.requests().size() == 1);
  CHECK(!events.named("content_block:delta").empty());  // the user saw the partial answer
}

TEST_CASE("parallel function calls: all run, results go back in call order") {
  amp_test::TempDir dir("amp-openai");
  amp_test::write_file(dir / "a.txt", "alpha\n");
  amp_test::write_file(dir / "sub" / "b.txt", "beta\n");
  loopback::LoopbackServer server;
  server.enqueue(sse_body(calls_stream({{"call_1", "read_file", R"({"path":"a.txt"})"},
                                        {"call_2", "list_directory", R"({"path":"sub"})"},
                                        {"call_3", "read_file", R"({"path":"sub/b.txt"})"}})));
  server.enqueue(sse_body(text_stream("resp_done", {"Done."})));
  auto session =
      open_session(openai_plan(openai_config(server.base_url()),
                               "tools:\n  - module: tool-filesystem\n    config: {working_dir: \"" +
                                   dir.path().string() + "\", allowed_read_paths: [\".\"]}\n"));
  EventRecorder events(session->hooks());
  const auto result = session->execute("read them");
  CHECK(result.status == "success");
  CHECK(result.response == "Done.");
  CHECK(events.named("tool:post").size() == 3);

  REQUIRE(server.requests().size() == 2);
  const json::object second = request_body(server.requests()[1]);
  const auto &input = second.at("input").as_array();
  REQUIRE(input.size() == 7);
  std::vector<std::string> order;
  for (const auto &item : input)
    order.push_back(std::string(item.as_object().if_contains("type")
                                    ? item.at("type").as_string()
                                    : item.at("role").as_string()));
  CHECK(order == std::vector<std::string>{"user", "function_call", "function_call", "function_call",
                                          "function_call_output", "function_call_output",
                                          "function_call_output"});
  CHECK(input[4].at("call_id") == "call_1");
  CHECK(input[5].at("call_id") == "call_2");
  CHECK(input[6].at("call_id") == "call_3");
  CHECK(std::string(input[4].at("output").as_string()).find("alpha") != std::string::npos);
  CHECK(std::string(input[5].at("output").as_string()).find("b.txt") != std::string::npos);
  CHECK(std::string(input[6].at("output").as_string()).find("beta") != std::string::npos);
}

TEST_CASE("arguments that are not JSON: the tool does not run, the model reads why") {
  amp_test::TempDir dir("amp-openai");
  loopback::LoopbackServer server;
  server.enqueue(sse_body(calls_stream({{"call_bad", "read_file", R"({"path": "a.txt")"}})));
  server.enqueue(sse_body(text_stream("resp_done", {"Sorry."})));
  auto session =
      open_session(openai_plan(openai_config(server.base_url()),
                               "tools:\n  - module: tool-filesystem\n    config: {working_dir: \"" +
                                   dir.path().string() + "\"}\n"));
  EventRecorder events(session->hooks());
  CHECK(session->execute("read a.txt").status == "success");
  CHECK(events.named("tool:pre").empty());
  const auto errors = events.named("tool:error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].data.at("error").at("type") == "invalid_arguments");

  const json::object second = request_body(server.requests().at(1));
  const auto &input = second.at("input").as_array();
  // The call goes back exactly as the model wrote it, with the error as its result.
  CHECK(input[1].at("arguments") == R"({"path": "a.txt")");
  const std::string output(input[2].at("output").as_string());
  CHECK(output.find("could not be used") != std::string::npos);
  CHECK(output.find(R"({"path": "a.txt")") != std::string::npos);
}

TEST_CASE("list_models: GET /models with the key, on OpenAI and on Azure") {
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::json(
      200, R"({"object":"list","data":[{"id":"gpt-5","object":"model","owned_by":"openai"},
                {"id":"gpt-4o-mini","object":"model","owned_by":"openai"}]})"));
  server.enqueue(loopback::ScriptedResponse::json(
      200, R"({"object":"list","data":[{"id":"gpt-5-mini","object":"model"}]})"));
  auto session = open_session(
      "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
      "  - module: provider-openai\n    config: " +
      json::serialize(openai_config(server.base_url())) +
      "\n  - module: provider-azure-openai\n    config: " +
      json::serialize(azure_config(server.base_url())) + "\n");
  auto list = [&](std::string_view module) {
    const auto *provider = session->coordinator().provider(module);
    REQUIRE(provider);
    amp::sdk::StringWriter out;
    REQUIRE(provider->table<amp_provider_vtable>()->list_models(provider->instance, &out) ==
            AMP_OK);
    return json::parse(out.text).as_array();
  };
  const json::array openai_models = list("provider-openai");
  REQUIRE(openai_models.size() == 2);
  CHECK(openai_models[0].at("id") == "gpt-5");
  CHECK(openai_models[0].at("context_window") == 400000);
  CHECK(list("provider-azure-openai").at(0).at("id") == "gpt-5-mini");
  const auto requests = server.requests();
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "/v1/models");
  CHECK(requests[0].header("authorization") == "Bearer sk-test");
  CHECK(requests[1].target == "/openai/v1/models");
  CHECK(requests[1].header("api-key") == "azure-test-key");
}

TEST_CASE("no key: the provider mounts, a call fails with `authentication` naming the variable") {
  ::unsetenv("OPENAI_API_KEY");
  loopback::LoopbackServer server;
  json::object config = openai_config(server.base_url());
  config["api_key"] = "";
  LogCapture log;
  auto session = open_session(openai_plan(config));
  CHECK(session->load_failures().empty());
  auto call = call_openai(*session, user_request("hi"));
  REQUIRE(call->wait_finished());
  const json::object error = call->result();
  CHECK(error.at("kind") == "authentication");
  CHECK(std::string(error.at("message").as_string()).find("OPENAI_API_KEY") != std::string::npos);
  CHECK(server.requests().empty());
}

TEST_CASE("unknown config keys are warned about with a suggestion") {
  LogCapture log;
  loopback::LoopbackServer server;
  json::object config = openai_config(server.base_url());
  config["reasoning_efort"] = "low";
  auto session = open_session(openai_plan(config));
  CHECK(!log.containing("did you mean 'reasoning_effort'").empty());
}
