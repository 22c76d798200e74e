// The recorded openai_* and azure_* fixtures served by the loopback vendor server, in small
// chunks, into real sessions (loop-basic + context-simple + the provider module): live events,
// the assembled answer, what went over the wire, and typed errors.
#include "openai_test_support.hpp"

#include "amplifier/stream.hpp"

using namespace openai_test;

namespace {

constexpr std::string_view kToolLoop =
    "openai_responses_stream_reasoning_tool_loop_recorded_vercel.ndjson";

json::object completed_response(const std::string &sse) {
  for (const auto &p : sse_payloads(sse))
    if (p.at("type") == "response.completed") return p.at("response").as_object();
  FAIL("no response.completed");
  return {};
}

const json::object *item_of_type(const json::array &input, std::string_view type,
                                 std::size_t nth = 0) {
  for (const auto &item : input)
    if (item.as_object().if_contains("type") && item.at("type").as_string() == type && nth-- == 0)
      return &item.as_object();
  return nullptr;
}

}  // namespace

TEST_CASE(
    "the recorded reasoning + tool loop: every later request carries the reasoning item "
    "(last encrypted_content) and the function_call unchanged") {
  const std::vector<std::string> streams = ndjson_streams(kToolLoop);
  loopback::LoopbackServer server;
  for (const auto &stream : streams) server.enqueue(sse_body(stream));
  json::object config = openai_config(server.base_url());
  config["reasoning_effort"] = "high";
  auto session = open_session(openai_plan(config));
  EventRecorder events(session->hooks());
  const auto result = session->execute("What is (12 + 7) * 3 * 10? Use the calculator.");
  CHECK(result.status == "success");
  CHECK(result.response == "The final result is **570**.");

  // The calculator is not mounted: each call got an error result and the model went on.
  CHECK(events.named("tool:error").size() == 3);
  REQUIRE(server.requests().size() == 4);
  const json::object first_completed = completed_response(streams[0]);
  const json::object &recorded_reasoning = first_completed.at("output").at(0).as_object();
  const json::object &recorded_call = first_completed.at("output").at(1).as_object();

  for (std::size_t r = 1; r < 4; ++r) {
    CAPTURE(r);
    const json::object body = request_body(server.requests()[r]);
    const json::array &input = body.at("input").as_array();
    const json::object *reasoning = item_of_type(input, "reasoning");
    REQUIRE(reasoning);
    CHECK(reasoning->at("id") == recorded_reasoning.at("id"));
    CHECK(reasoning->at("encrypted_content") == recorded_reasoning.at("encrypted_content"));
    CHECK(reasoning->at("summary") == recorded_reasoning.at("summary"));
    const json::object *call = item_of_type(input, "function_call");
    REQUIRE(call);
    CHECK(call->at("call_id") == recorded_call.at("call_id"));
    CHECK(call->at("name") == recorded_call.at("name"));
    CHECK(call->at("arguments") == recorded_call.at("arguments"));
    CHECK(call->at("id") == recorded_call.at("id"));
    // The reasoning item comes right before the call it preceded, the result right after.
    CHECK(&input[1].as_object() == reasoning);
    CHECK(&input[2].as_object() == call);
    CHECK(input[3].at("type") == "function_call_output");
    CHECK(input[3].at("call_id") == recorded_call.at("call_id"));
    CHECK(std::string(input[3].at("output").as_string()).find("not available") !=
          std::string::npos);
    CHECK(body.at("include") == json::parse(R"(["reasoning.encrypted_content"])"));
    CHECK(body.at("reasoning") == json::parse(R"({"effort":"high","summary":"auto"})"));
  }
  // The raw bytes of the last request hold the final encrypted_content unchanged.
  CHECK(server.requests()[3].body.find(std::string(
            recorded_reasoning.at("encrypted_content").as_string())) != std::string::npos);

  // Live events: a reasoning block first, three tool calls, the text at the end.
  const auto starts = events.named("content_block:start");
  REQUIRE(starts.size() == 5);
  CHECK(starts[0].data.at("block_type") == "reasoning");
  CHECK(starts[1].data.at("block_type") == "tool_call");
  CHECK(starts[4].data.at("block_type") == "text");
  const auto responses = events.named("provider:response");
  REQUIRE(responses.size() == 4);
  CHECK(responses[3].data.at("usage").at("input_tokens") == 299);
}

TEST_CASE("the docs stream through a session: the answer, usage, and the request on the wire") {
  loopback::LoopbackServer server;
  server.enqueue(sse_body(fixture("openai_responses_stream_docs.sse")));
  json::object config = openai_config(server.base_url());
  config["organization"] = "org-test";
  config["max_tokens"] = 64;
  auto session = open_session(openai_plan(config));
  EventRecorder events(session->hooks());
  const auto result = session->execute("hello");
  CHECK(result.status == "success");
  CHECK(result.response == "Hi there! How can I assist you today?");
  std::string streamed;
  for (const auto &d : events.named("content_block:delta"))
    streamed += d.data.at("delta").at("text").as_string();
  CHECK(streamed == result.response);

  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].target == "/v1/responses");
  CHECK(requests[0].header("authorization") == "Bearer sk-test");
  CHECK(requests[0].header("openai-organization") == "org-test");
  CHECK(requests[0].header("accept") == "text/event-stream");
  const json::object body = request_body(requests[0]);
  CHECK(body.at("model") == "gpt-test");
  CHECK(body.at("stream") == true);
  CHECK(body.at("store") == false);
  CHECK(body.at("max_output_tokens") == 64);
  CHECK(body.at("input").at(0) ==
        json::parse(R"({"role":"user","content":[{"type":"input_text","text":"hello"}]})"));
}

TEST_CASE("non-streamed recorded responses (stream: false) end the call with the same content") {
  for (const std::string name :
       {"openai_responses_text_recorded.json", "openai_responses_function_call_spec.json",
        "openai_responses_reasoning_encrypted_recorded_vercel.json"}) {
    CAPTURE(name);
    const json::object recorded = fixture_json(name);
    loopback::LoopbackServer server;
    server.enqueue(loopback::ScriptedResponse::json(200, json::serialize(recorded)));
    auto session = open_session(openai_plan(openai_config(server.base_url())));
    json::object request = user_request("hi");
    request["stream"] = false;
    auto call = amp_test::complete(*session, "provider-openai", request);
    REQUIRE(call->wait_finished());
    REQUIRE(call->status == AMP_OK);
    const json::object response = call->result();
    CHECK(response.at("metadata").at("response_id") == recorded.at("id"));
    const auto &output = recorded.at("output").as_array();
    const auto &content = response.at("content").as_array();
    REQUIRE(content.size() == output.size());
    for (std::size_t i = 0; i < output.size(); ++i) {
      const std::string type(output[i].at("type").as_string());
      if (type == "function_call") {
        CHECK(content[i].at("id") == output[i].at("call_id"));
        CHECK(content[i].at("input") == json::parse(output[i].at("arguments").as_string()));
      } else if (type == "reasoning") {
        CHECK(content[i].at("encrypted_content") == output[i].at("encrypted_content"));
      } else {
        CHECK(content[i].at("text") == output[i].at("content").at(0).at("text"));
      }
    }
    // The events streamed to the caller rebuild the same content.
    amplifier::ResponseAssembler assembler;
    for (const auto &e : call->parsed_events()) assembler.feed(e);
    CHECK(amplifier::to_json(assembler.finish()).at("content") == response.at("content"));
    CHECK(server.requests().at(0).header("accept") == "application/json");
  }
}

TEST_CASE("the recorded mid-stream error: a typed quota error, not retried") {
  loopback::LoopbackServer server;
  server.set_default_response(
      sse_body(ndjson_streams("openai_responses_stream_error_recorded_vercel.ndjson").at(0)));
  auto session = open_session(openai_plan(openai_config(server.base_url())));
  auto call = amp_test::complete(*session, "provider-openai", user_request("hi"));
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_ERROR);
  const json::object error = call->result();
  CHECK(error.at("kind") == "quota");
  CHECK(error.at("provider") == "provider-openai");
  CHECK(std::string(error.at("message").as_string()).find("insufficient_quota") !=
        std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("Azure v1: the path, the api-key header, the deployment as model, content_filters kept") {
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::json(
      200, fixture("azure_openai_responses_function_call_recorded_vercel.json")));
  auto session =
      open_session(provider_plan("provider-azure-openai", azure_config(server.base_url())));
  json::object request = user_request("weather in SF?");
  request["stream"] = false;
  request["model"] = "gpt-4.1-mini";
  auto call = amp_test::complete(*session, "provider-azure-openai", request);
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  const json::object response = call->result();
  CHECK(response.at("finish_reason") == "tool_calls");
  CHECK(response.at("content").at(0).at("name") == "weather");
  const json::value recorded_filters =
      fixture_json("azure_openai_responses_function_call_recorded_vercel.json")
          .at("content_filters");
  CHECK(response.at("metadata").at("content_filters") == recorded_filters);
  CHECK(response.at("metadata").at("provider") == "provider-azure-openai");

  const auto sent = server.requests().at(0);
  CHECK(sent.target == "/openai/v1/responses");
  CHECK(sent.header("api-key") == "azure-test-key");
  CHECK(!sent.header("authorization"));
  CHECK(request_body(sent).at("model") == "my-deployment");
}

TEST_CASE("Azure deployments path with a dated api-version, and Entra ID tokens as Bearer") {
  loopback::LoopbackServer server;
  server.enqueue(sse_body(fixture("openai_responses_stream_docs.sse")));
  json::object config = azure_config(server.base_url());
  config.erase("api_key");
  config["azure_ad_token"] = "eyJ-test-token";
  config["api_version"] = "2025-04-01-preview";
  config["deployment_mapping"] = json::object{{"gpt-5", "prod gpt5"}};
  auto session = open_session(provider_plan("provider-azure-openai", config));
  json::object request = user_request("hi");
  request["model"] = "gpt-5";
  auto call = amp_test::complete(*session, "provider-azure-openai", request);
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  const auto sent = server.requests().at(0);
  CHECK(sent.target == "/openai/deployments/prod%20gpt5/responses?api-version=2025-04-01-preview");
  CHECK(sent.header("authorization") == "Bearer eyJ-test-token");
  CHECK(!sent.header("api-key"));
  CHECK(call->result().at("metadata").at("model") == "gpt-5.4");  // as the API reported it
}

TEST_CASE("Azure content filter: the content_filter kind with the filter details, not retried") {
  loopback::LoopbackServer server;
  const json::object recorded = fixture_json("azure_openai_error_content_filter_docs.json");
  server.set_default_response(loopback::ScriptedResponse::json(400, json::serialize(recorded)));
  auto session =
      open_session(provider_plan("provider-azure-openai", azure_config(server.base_url())));
  auto call = amp_test::complete(*session, "provider-azure-openai", user_request("..."));
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_ERROR);
  const json::object error = call->result();
  CHECK(error.at("kind") == "content_filter");
  CHECK(error.at("retryable") == false);
  CHECK(error.at("status_code") == 400);
  CHECK(error.at("innererror") == recorded.at("error").at("innererror"));
  CHECK(std::string(error.at("message").as_string()).find("Azure OpenAI") != std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("raw (debug + raw_debug): llm:request:raw and llm:response:raw carry the wire payloads, the key redacted") {
  loopback::LoopbackServer server;
  const std::string sse = fixture("openai_responses_stream_docs.sse");
  server.enqueue(sse_body(sse));
  json::object config = openai_config(server.base_url());
  config["raw"] = true;
  config["api_key"] = "sk-very-secret";
  auto session = open_session(openai_plan(config));
  EventRecorder events(session->hooks());
  CHECK(session->execute("hi").status == "success");
  CHECK(server.requests().at(0).header("authorization") == "Bearer sk-very-secret");

  REQUIRE(events.named("llm:request").size() == 1);
  CHECK(!events.named("llm:request")[0].data.contains("request"));  // the summary only
  const auto requests = events.named("llm:request:raw");
  REQUIRE(requests.size() == 1);
  const json::object &raw_request = requests[0].data.at("request").as_object();
  CHECK(raw_request.at("url").as_string() == server.base_url() + "/v1/responses");
  CHECK(raw_request.at("body").at("input").at(0).at("role") == "user");
  CHECK(requests[0].data.at("message_count") == 1);
  const auto responses = events.named("llm:response:raw");
  REQUIRE(responses.size() == 1);
  CHECK(responses[0].data.at("response").at("body").as_array().size() == sse_payloads(sse).size());
  for (const auto &event : {requests[0], responses[0]})
    CHECK(json::serialize(event.data).find("sk-very-secret") == std::string::npos);
}
