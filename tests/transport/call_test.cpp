// start_call: events as they arrive, error mapping, and the retry policy end to end.
#include "test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::transport {
namespace {

using loopback::Fault;
using loopback::LoopbackServer;
using loopback::ScriptedResponse;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using testing::fixture;

std::vector<std::pair<std::string, std::string>> parse_events(const std::string &stream) {
  std::vector<std::pair<std::string, std::string>> events;
  SseParser parser([&](const SseEvent &event) { events.emplace_back(event.type, event.data); });
  parser.feed(stream);
  parser.finish();
  return events;
}

const std::string kShortStream = "event: a\ndata: {\"n\":1}\n\nevent: b\ndata: {\"n\":2}\n\nevent: c\ndata: {\"n\":3}\n\n";

TEST_CASE("call: a recorded Anthropic stream arrives event by event") {
  const std::string stream = fixture("anthropic_stream_tool_use_recorded.sse");
  LoopbackServer server;
  server.enqueue(ScriptedResponse::sse(stream, {7}));
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK(record.result.attempts == 1);
  CHECK(record.result.head.status == 200);
  CHECK(record.events == parse_events(stream));
  CHECK_FALSE(record.result.sse_end.truncated);
}

TEST_CASE("call: 429 with retry-after is retried after at least the hint") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::rate_limited("1"));
  server.enqueue(ScriptedResponse::sse(kShortStream));
  testing::ClientThread thread;
  const auto started = Clock::now();
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  const auto elapsed = Clock::now() - started;
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK(record.result.attempts == 2);
  CHECK(record.events.size() == 3);
  CHECK(record.retry_attempts == std::vector<int>{2});
  CHECK(record.retry_delays == std::vector<std::chrono::milliseconds>{1000ms});
  CHECK(elapsed >= 950ms);
  CHECK(server.requests().size() == 2);
}

TEST_CASE("call: retry-after-ms is preferred and honoured") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(429, "{}", {{"retry-after-ms", "250"}, {"retry-after", "30"}}));
  server.enqueue(ScriptedResponse::sse(kShortStream));
  testing::ClientThread thread;
  const auto started = Clock::now();
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK(record.retry_delays == std::vector<std::chrono::milliseconds>{250ms});
  CHECK(Clock::now() - started >= 240ms);
}

TEST_CASE("call: 529 then 500 then success") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::overloaded());
  server.enqueue(ScriptedResponse::server_error());
  server.enqueue(ScriptedResponse::sse(kShortStream));
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK(record.result.attempts == 3);
  CHECK(record.retry_attempts == std::vector<int>{2, 3});
  CHECK(record.events.size() == 3);
}

TEST_CASE("call: retries exhausted end with the last typed error") {
  LoopbackServer server;
  for (int i = 0; i < 3; ++i) server.enqueue(ScriptedResponse::overloaded());
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE(record.result.error.has_value());
  CHECK(record.result.error->kind == ErrorKind::overloaded);
  CHECK(record.result.error->status_code == 529);
  CHECK(record.result.error->message == "Overloaded");
  CHECK(record.result.error->provider == std::optional<std::string>("loopback"));
  CHECK(record.result.attempts == 3);
  CHECK(server.requests().size() == 3);
}

TEST_CASE("call: x-should-retry false stops retries of a retryable status") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(500, R"({"error":{"type":"api_error","message":"no"}})",
                                        {{"x-should-retry", "false"}}));
  server.enqueue(ScriptedResponse::sse(kShortStream));
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE(record.result.error.has_value());
  CHECK(record.result.error->kind == ErrorKind::unavailable);
  CHECK_FALSE(record.result.error->retryable);
  CHECK(record.result.attempts == 1);
  CHECK(record.retry_attempts.empty());
}

TEST_CASE("call: the recorded 400 is not retried and keeps the vendor message and request id") {
  const auto recorded = boost::json::parse(fixture("anthropic_error_400_invalid_request_recorded.json")).as_object();
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(400, boost::json::serialize(recorded.at("body")), {{"x-should-retry", "false"}}));
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE(record.result.error.has_value());
  CHECK(record.result.error->kind == ErrorKind::invalid_request);
  CHECK(record.result.error->request_id == std::optional<std::string>("req_011CYHyk9NPsBYeGbC9LuDNK"));
  CHECK(record.result.attempts == 1);
}

ScriptedResponse cut_after_first_event(Fault fault) {
  ScriptedResponse response = ScriptedResponse::sse(kShortStream, {5});
  response.fault = fault;
  response.fault_after_bytes = 25;  // past the first event (24 bytes), inside the second
  // A reset discards what the client has not read yet: the pause lets it read the first event
  // before the reset arrives, however loaded the machine (without it the test was flaky).
  response.piece_interval = std::chrono::milliseconds(50);
  return response;
}

TEST_CASE("call: a stream cut before content reached the user is retried") {
  for (const Fault fault : {Fault::reset, Fault::close}) {
    CAPTURE(static_cast<int>(fault));
    LoopbackServer server;
    server.enqueue(cut_after_first_event(fault));
    server.enqueue(ScriptedResponse::sse(kShortStream));
    testing::ClientThread thread;
    const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
    REQUIRE_FALSE(record.result.error.has_value());
    CHECK(record.result.attempts == 2);
  }
}

TEST_CASE("call: never retried once content was delivered") {
  for (const Fault fault : {Fault::reset, Fault::close}) {
    CAPTURE(static_cast<int>(fault));
    LoopbackServer server;
    server.enqueue(cut_after_first_event(fault));
    server.enqueue(ScriptedResponse::sse(kShortStream));
    testing::ClientThread thread;
    const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"),
                                          /*mark_delivered_after=*/1);
    REQUIRE(record.result.error.has_value());
    CHECK((record.result.error->kind == ErrorKind::stream || record.result.error->kind == ErrorKind::network));
    CHECK(record.result.attempts == 1);
    CHECK(record.retry_attempts.empty());
    CHECK(server.requests().size() == 1);
  }
}

TEST_CASE("call: an idle stall ends in a timeout, retried when nothing was delivered") {
  LoopbackServer server;
  ScriptedResponse stalled = ScriptedResponse::sse(kShortStream);
  stalled.fault = Fault::stall;
  stalled.fault_after_bytes = 10;
  server.enqueue(stalled);
  server.enqueue(stalled);
  testing::ClientThread thread;
  CallSpec spec = testing::fast_retry_spec(server.base_url() + "/v1/messages");
  spec.retry.max_retries = 1;
  spec.request.timeouts = testing::loopback_options().timeouts;
  spec.request.timeouts->stream_idle = 200ms;
  const auto record = testing::run_call(thread.client(), spec);
  REQUIRE(record.result.error.has_value());
  CHECK(record.result.error->kind == ErrorKind::timeout);
  CHECK(record.result.attempts == 2);
  CHECK(record.result.error->provider == std::optional<std::string>("loopback"));
}

TEST_CASE("call: an in-stream error event failed by the provider is retried, then final after content") {
  const std::string error_stream = fixture("anthropic_stream_error_overloaded_docs.sse");
  auto run = [&](bool deliver_first) {
    LoopbackServer server;
    server.enqueue(ScriptedResponse::sse((deliver_first ? "event: a\ndata: {}\n\n" : "") + error_stream));
    server.enqueue(ScriptedResponse::sse(kShortStream));
    testing::ClientThread thread;
    auto done = std::make_shared<std::promise<CallResult>>();
    auto finished = done->get_future();
    CallHandlers handlers;
    handlers.on_event = [](const SseEvent &event, CallControl &control) {
      if (event.type == "error") {
        control.fail(map_stream_error(event.data));
        return;
      }
      control.mark_content_delivered();
    };
    handlers.on_complete = [done](CallResult result) { done->set_value(std::move(result)); };
    start_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"), std::move(handlers));
    return testing::wait_for(finished);
  };
  const CallResult retried = run(false);
  CHECK_FALSE(retried.error.has_value());
  CHECK(retried.attempts == 2);
  const CallResult final_error = run(true);
  REQUIRE(final_error.error.has_value());
  CHECK(final_error.error->kind == ErrorKind::overloaded);
  CHECK(final_error.error->provider == std::optional<std::string>("loopback"));
  CHECK(final_error.attempts == 1);
}

TEST_CASE("call: invalid JSON in an event and an unknown event type") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::sse("event: surprise\ndata: {\"x\":1}\n\nevent: delta\ndata: {\"broken\": \n\nevent: delta\ndata: {}\n\n"));
  testing::ClientThread thread;
  auto done = std::make_shared<std::promise<CallResult>>();
  auto finished = done->get_future();
  auto seen = std::make_shared<std::vector<std::string>>();
  CallHandlers handlers;
  handlers.on_event = [seen](const SseEvent &event, CallControl &control) {
    seen->emplace_back(event.type);
    if (event.type != "delta") return;  // unknown types are skipped by the provider
    boost::system::error_code error;
    boost::json::parse(event.data, error);
    if (error) {
      KernelError malformed = KernelError::make(ErrorKind::stream, "malformed event JSON");
      malformed.retryable = false;
      control.fail(std::move(malformed));
    }
  };
  handlers.on_complete = [done](CallResult result) { done->set_value(std::move(result)); };
  start_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"), std::move(handlers));
  const CallResult result = testing::wait_for(finished);
  REQUIRE(result.error.has_value());
  CHECK(result.error->kind == ErrorKind::stream);
  CHECK(result.attempts == 1);
  CHECK(*seen == std::vector<std::string>{"surprise", "delta"});  // nothing after fail()
}

TEST_CASE("call: a truncated SSE stream is reported in sse_end") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::sse("event: a\ndata: 1\n\nevent: message_stop\ndata: {}\n"));
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"));
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK(record.events.size() == 1);
  CHECK(record.result.sse_end.truncated);
  CHECK(record.result.sse_end.unterminated_type == std::optional<std::string>("message_stop"));
}

TEST_CASE("call: NDJSON lines and whole bodies") {
  const std::string ndjson = fixture("ollama_chat_stream_tool_calls_docs.ndjson");
  LoopbackServer server;
  server.enqueue(ScriptedResponse::ndjson(ndjson, {5}));
  server.enqueue(ScriptedResponse::json(200, fixture("anthropic_response_tool_use_recorded.json")));
  testing::ClientThread thread;
  const auto lines = testing::run_call(thread.client(),
                                       testing::fast_retry_spec(server.base_url() + "/api/chat", BodyFormat::ndjson));
  REQUIRE_FALSE(lines.result.error.has_value());
  std::vector<std::string> expected;
  NdjsonReader reader([&](std::string_view line) { expected.emplace_back(line); });
  reader.feed(ndjson);
  reader.finish();
  CHECK(lines.lines == expected);

  const auto whole = testing::run_call(thread.client(),
                                       testing::fast_retry_spec(server.base_url() + "/v1/messages", BodyFormat::whole));
  REQUIRE_FALSE(whole.result.error.has_value());
  CHECK(boost::json::parse(whole.result.body).as_object().at("type").as_string() == "message");
}

TEST_CASE("call: cancelling during a retry wait ends at once with cancelled") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::rate_limited("30"));
  testing::ClientThread thread;
  auto waiting = std::make_shared<std::promise<void>>();
  auto retry_scheduled = waiting->get_future();
  auto done = std::make_shared<std::promise<CallResult>>();
  auto finished = done->get_future();
  CallHandlers handlers;
  handlers.on_retry = [waiting](const RetryNotice &) { waiting->set_value(); };
  handlers.on_complete = [done](CallResult result) { done->set_value(std::move(result)); };
  const CancelHandle handle = start_call(
      thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"), std::move(handlers));
  testing::wait_for(retry_scheduled);
  const auto cancelled_at = Clock::now();
  handle.cancel();
  const CallResult result = testing::wait_for(finished);
  CHECK(Clock::now() - cancelled_at < 2s);
  REQUIRE(result.error.has_value());
  CHECK(result.error->kind == ErrorKind::cancelled);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("call: cancelling a stream mid-flight ends with cancelled") {
  LoopbackServer server;
  ScriptedResponse stalled = ScriptedResponse::sse(kShortStream);
  stalled.fault = Fault::stall;
  stalled.fault_after_bytes = 24;
  server.enqueue(stalled);
  testing::ClientThread thread;
  auto first = std::make_shared<std::promise<void>>();
  auto first_event = first->get_future();
  auto done = std::make_shared<std::promise<CallResult>>();
  auto finished = done->get_future();
  CallHandlers handlers;
  handlers.on_event = [first](const SseEvent &, CallControl &) { first->set_value(); };
  handlers.on_complete = [done](CallResult result) { done->set_value(std::move(result)); };
  const CancelHandle handle = start_call(
      thread.client(), testing::fast_retry_spec(server.base_url() + "/v1/messages"), std::move(handlers));
  testing::wait_for(first_event);
  handle.cancel();
  const CallResult result = testing::wait_for(finished);
  REQUIRE(result.error.has_value());
  CHECK(result.error->kind == ErrorKind::cancelled);
  CHECK(result.attempts == 1);
  CHECK(server.wait_for_closed_connections(1, 10s));
}

}  // namespace
}  // namespace amplifier::transport
