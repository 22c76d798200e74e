// The fault matrix against the loopback server: every fault ends in a retried success or a
// typed error, with exactly one terminal event; plus TLS trust, cancellation, shutdown with
// calls in flight, a missing API key and many concurrent calls on one instance.
#include "anthropic_test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier_sdk.hpp"

#include <cstdlib>

using namespace anthropic_test;
namespace loopback = amplifier::loopback;
using Clock = std::chrono::steady_clock;

namespace {

const std::vector<std::size_t> kFaultPieces{9, 31, 4};

std::string text_stream() { return fixture("anthropic_stream_text_recorded.sse"); }

loopback::ScriptedResponse text_response() {
  return loopback::ScriptedResponse::sse(text_stream(), kFaultPieces);
}

// The text stream broken off after its first content delta: the user has seen content.
std::size_t after_first_delta(const std::string &sse) {
  const auto delta = sse.find("event: content_block_delta");
  return sse.find("\n\n", delta) + 2;
}

// A fault in the text stream after `bytes` body bytes.
loopback::ScriptedResponse faulty(loopback::Fault fault, std::size_t bytes) {
  loopback::ScriptedResponse response = text_response();
  response.fault = fault;
  response.fault_after_bytes = bytes;
  return response;
}

struct Outcome {
  amp_status status;
  json::object payload;
  std::vector<json::object> events;
};

Outcome run_call(amplifier::Session &session, const json::object &request = user_request("hi")) {
  auto call = complete(session, request);
  REQUIRE(call->wait_finished(20s));
  return Outcome{call->status, call->result(), call->parsed_events()};
}

std::unique_ptr<amplifier::Session> session_for(const loopback::LoopbackServer &server,
                                                json::object extra = {}) {
  json::object config = loopback_config(server.base_url());
  for (auto &field : extra) config[field.key()] = field.value();
  return open_session(anthropic_plan(config));
}

std::size_t content_starts(const std::vector<json::object> &events) {
  std::size_t n = 0;
  for (const auto &e : events) n += e.at("type") == "content_block_start";
  return n;
}

}  // namespace

TEST_CASE("429 with retry-after, then success: one provider:retry, then the answer") {
  LogCapture log;
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::rate_limited("0.05"));
  server.enqueue(text_response());
  {
    auto session = session_for(server);
    EventRecorder events(session->hooks());
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_OK);
    CHECK(outcome.payload.at("content").at(0).at("text") == "[12345,67890]");
    CHECK(server.requests().size() == 2);
    const auto retries = events.named("provider:retry");
    REQUIRE(retries.size() == 1);
    CHECK(retries[0].data.at("attempt") == 2);
    CHECK(retries[0].data.at("error").at("kind") == "rate_limit");
    CHECK(retries[0].data.at("provider") == "provider-anthropic");
    CHECK(content_starts(outcome.events) == 1);  // the failed attempt delivered nothing
  }
  // The session is gone: any second terminal event would have been logged by now.
  CHECK(log.containing("protocol violation").empty());
}

TEST_CASE(
    "529 overloaded: retried with the longer backoff; when retries run out, an overloaded error") {
  SUBCASE("then success") {
    loopback::LoopbackServer server;
    server.enqueue(loopback::ScriptedResponse::overloaded());
    server.enqueue(text_response());
    auto session = session_for(server);
    EventRecorder events(session->hooks());
    CHECK(run_call(*session).status == AMP_OK);
    REQUIRE(events.named("provider:retry").size() == 1);
    CHECK(events.named("provider:retry")[0].data.at("error").at("kind") == "overloaded");
  }
  SUBCASE("always overloaded") {
    loopback::LoopbackServer server;
    server.set_default_response(loopback::ScriptedResponse::overloaded());
    auto session = session_for(server, {{"max_retries", 1}});
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_ERROR);
    CHECK(outcome.payload.at("kind") == "overloaded");
    CHECK(outcome.payload.at("retryable") == true);
    CHECK(outcome.payload.at("status_code") == 529);
    CHECK(outcome.payload.at("delay_multiplier") == 10.0);
    CHECK(server.requests().size() == 2);
  }
  SUBCASE("an overloaded_error event inside a 200 stream, before any content, is retried too") {
    loopback::LoopbackServer server;
    server.enqueue(
        loopback::ScriptedResponse::sse(fixture("anthropic_stream_error_overloaded_docs.sse")));
    server.enqueue(text_response());
    auto session = session_for(server);
    CHECK(run_call(*session).status == AMP_OK);
    CHECK(server.requests().size() == 2);
  }
}

TEST_CASE(
    "500 api_error: retried; persistent failure is `unavailable` after max_retries + 1 requests") {
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::server_error());
  server.enqueue(text_response());
  auto session = session_for(server);
  CHECK(run_call(*session).status == AMP_OK);

  loopback::LoopbackServer failing;
  failing.set_default_response(loopback::ScriptedResponse::server_error());
  auto failing_session = session_for(failing);
  const Outcome outcome = run_call(*failing_session);
  CHECK(outcome.payload.at("kind") == "unavailable");
  CHECK(failing.requests().size() == 3);  // max_retries 2
}

TEST_CASE("a connection reset: retried before any content, a typed error after content") {
  const std::string sse = text_stream();
  SUBCASE("reset inside message_start") {
    loopback::LoopbackServer server;
    server.enqueue(faulty(loopback::Fault::reset, 40));
    server.enqueue(text_response());
    auto session = session_for(server);
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_OK);
    CHECK(server.requests().size() == 2);
  }
  SUBCASE("reset after the first text delta reached the user") {
    // A reset discards whatever the client has not read yet, so the server paces its pieces
    // for the delta to be read before the reset goes out.
    loopback::ScriptedResponse response = faulty(loopback::Fault::reset, after_first_delta(sse));
    response.piece_interval = std::chrono::milliseconds(100);
    loopback::LoopbackServer server;
    server.set_default_response(response);
    auto session = session_for(server);
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_ERROR);
    const std::string kind(outcome.payload.at("kind").as_string());
    CHECK((kind == "network" || kind == "stream"));
    CHECK(server.requests().size() == 1);  // no retry: the user already has part of the answer
    CHECK(content_starts(outcome.events) == 1);
  }
}

TEST_CASE("a truncated stream is a `stream` error") {
  const std::string sse = text_stream();
  SUBCASE("the connection closes mid-body") {
    loopback::LoopbackServer server;
    server.set_default_response(faulty(loopback::Fault::close, after_first_delta(sse)));
    auto session = session_for(server);
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_ERROR);
    CHECK(outcome.payload.at("kind") == "stream");
  }
  SUBCASE("a complete HTTP body that stops before message_stop") {
    loopback::LoopbackServer server;
    server.set_default_response(
        loopback::ScriptedResponse::sse(sse.substr(0, sse.find("event: message_delta"))));
    auto session = session_for(server);
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_ERROR);
    CHECK(outcome.payload.at("kind") == "stream");
    CHECK(std::string(outcome.payload.at("message").as_string()).find("message_stop") !=
          std::string::npos);
  }
}

TEST_CASE("an idle stall ends in a timeout error once `timeout` passes without a byte") {
  const std::string sse = text_stream();
  loopback::LoopbackServer server;
  server.set_default_response(faulty(loopback::Fault::stall, after_first_delta(sse)));
  auto session = session_for(server, {{"timeout", 0.3}});
  const auto started = Clock::now();
  const Outcome outcome = run_call(*session);
  const auto elapsed = Clock::now() - started;
  CHECK(outcome.status == AMP_ERROR);
  CHECK(outcome.payload.at("kind") == "timeout");
  CHECK(elapsed < 10s);
  CHECK(server.requests().size() == 1);
}

TEST_CASE(
    "an invalid JSON event: retried when nothing was shown yet, a stream error after content") {
  const std::string sse = text_stream();
  SUBCASE("first event broken") {
    loopback::LoopbackServer server;
    server.enqueue(loopback::ScriptedResponse::sse(
        "event: message_start\ndata: {\"type\":\"message_start\",\n\n"));
    server.enqueue(text_response());
    auto session = session_for(server);
    CHECK(run_call(*session).status == AMP_OK);
    CHECK(server.requests().size() == 2);
  }
  SUBCASE("broken after content") {
    std::string broken = sse;
    broken.insert(after_first_delta(sse), "event: content_block_delta\ndata: {not json}\n\n");
    loopback::LoopbackServer server;
    server.set_default_response(loopback::ScriptedResponse::sse(broken, kFaultPieces));
    auto session = session_for(server);
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_ERROR);
    CHECK(outcome.payload.at("kind") == "stream");
    CHECK(server.requests().size() == 1);
  }
}

TEST_CASE("an unknown event type in the stream is ignored") {
  std::string sse = text_stream();
  sse.insert(after_first_delta(sse),
             "event: brand_new\ndata: {\"type\":\"brand_new\",\"index\":0}\n\n");
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::sse(sse, kFaultPieces));
  auto session = session_for(server);
  const Outcome outcome = run_call(*session);
  CHECK(outcome.status == AMP_OK);
  CHECK(outcome.payload.at("content").at(0).at("text") == "[12345,67890]");
}

TEST_CASE("HTTPS with a self-signed test CA: refused unless trusted") {
  loopback::LoopbackServer server(loopback::ServerOptions{true});
  server.set_default_response(text_response());
  SUBCASE("untrusted: a typed error, nothing retried into success") {
    auto session = session_for(server, {{"max_retries", 0}});
    const Outcome outcome = run_call(*session);
    CHECK(outcome.status == AMP_ERROR);
    const std::string kind(outcome.payload.at("kind").as_string());
    CHECK((kind == "network" || kind == "configuration"));
    CHECK(server.requests().empty());
  }
  SUBCASE("trusted through ca_file") {
    TempDir dir;
    const std::string ca_path = dir.path() + "/ca.pem";
    std::ofstream(ca_path) << server.ca_pem();
    auto session = session_for(server, {{"ca_file", ca_path}});
    CHECK(run_call(*session).status == AMP_OK);
  }
  SUBCASE("verify_tls: false works, with a warning") {
    LogCapture log;
    auto session = session_for(server, {{"verify_tls", false}});
    CHECK(run_call(*session).status == AMP_OK);
    CHECK(!log.containing("verify_tls").empty());
  }
}

TEST_CASE("cancel(immediate) aborts the stream at once and the call ends cancelled, exactly once") {
  LogCapture log;
  const std::string sse = text_stream();
  loopback::LoopbackServer server;
  server.set_default_response(faulty(loopback::Fault::stall, after_first_delta(sse)));
  auto session = session_for(server);
  auto call = complete(*session, user_request("hi"));
  REQUIRE(call->wait_events(3));  // usage, block start, first delta: the stream is live
  const auto started = Clock::now();
  session->coordinator().cancel_call(call->id, amplifier::CancelLevel::Immediate);
  REQUIRE(call->wait_finished(5s));
  CHECK(Clock::now() - started < 2s);
  CHECK(call->status == AMP_CANCELLED);
  CHECK(call->result().at("kind") == "cancelled");
  CHECK(server.wait_for_closed_connections(1, 5s));
  session.reset();
  CHECK(call->finish_count == 1);
  CHECK(log.containing("protocol violation").empty());
}

TEST_CASE("destroying the session with a call in flight cancels it first") {
  LogCapture log;
  loopback::LoopbackServer server;
  server.set_default_response(faulty(loopback::Fault::stall, 0));
  auto session = session_for(server);
  auto call = complete(*session, user_request("hi"));
  REQUIRE(server.wait_for_requests(1, 5s));
  session.reset();
  REQUIRE(call->wait_finished(5s));
  CHECK(call->status == AMP_CANCELLED);
  CHECK(call->finish_count == 1);
}

TEST_CASE("no API key: the provider mounts and lists, and a call fails with `authentication`") {
  ::unsetenv("ANTHROPIC_API_KEY");
  loopback::LoopbackServer server;
  json::object config = loopback_config(server.base_url());
  config["api_key"] = "";
  auto session = open_session(anthropic_plan(config));
  CHECK(session->load_failures().empty());
  REQUIRE(session->coordinator().provider("provider-anthropic") != nullptr);
  const Outcome outcome = run_call(*session);
  CHECK(outcome.status == AMP_ERROR);
  CHECK(outcome.payload.at("kind") == "authentication");
  CHECK(std::string(outcome.payload.at("message").as_string()).find("ANTHROPIC_API_KEY") !=
        std::string::npos);
  CHECK(server.requests().empty());
}

TEST_CASE("list_models pages through GET /v1/models with the API key") {
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::json(
      200,
      R"({"data":[{"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5"}],
              "has_more":true,"last_id":"claude-sonnet-4-5-20250929"})"));
  server.enqueue(loopback::ScriptedResponse::json(
      200,
      R"({"data":[{"type":"model","id":"claude-haiku-4-5-20251001","display_name":"Claude Haiku 4.5"}],"has_more":false})"));
  auto session = session_for(server);
  const auto *provider = session->coordinator().provider("provider-anthropic");
  REQUIRE(provider);
  amp::sdk::StringWriter out;
  REQUIRE(provider->table<amp_provider_vtable>()->list_models(provider->instance, &out) == AMP_OK);
  const json::array models = json::parse(out.text).as_array();
  REQUIRE(models.size() == 2);
  CHECK(models[1].at("id") == "claude-haiku-4-5-20251001");
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "/v1/models?limit=1000");
  CHECK(requests[1].target == "/v1/models?limit=1000&after_id=claude-sonnet-4-5-20250929");
  CHECK(requests[0].header("x-api-key") == "test-key");
}

TEST_CASE("many concurrent calls on one instance all complete") {
  constexpr int kCalls = 40;
  loopback::LoopbackServer server;
  server.set_default_response(text_response());
  auto session = session_for(server);
  std::vector<std::shared_ptr<CallRecorder>> calls;
  for (int i = 0; i < kCalls; ++i)
    calls.push_back(complete(*session, user_request("hi " + std::to_string(i))));
  for (auto &call : calls) {
    REQUIRE(call->wait_finished(30s));
    CHECK(call->status == AMP_OK);
  }
  CHECK(server.requests().size() == static_cast<std::size_t>(kCalls));
}
