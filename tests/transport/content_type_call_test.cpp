// BodyFormat::by_content_type (the server picks JSON or an event stream per response, as MCP's
// Streamable HTTP does), the body and event size limits, and what a call reports for a
// resumption: the response head's headers and the stream's last event id.
#include "test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

namespace amplifier::transport {
namespace {

using loopback::LoopbackServer;
using loopback::ScriptedResponse;

CallSpec spec_for(const LoopbackServer &server, BodyFormat format = BodyFormat::by_content_type) {
  CallSpec spec = testing::fast_retry_spec(server.base_url() + "/mcp", format);
  spec.retry.max_retries = 0;
  return spec;
}

TEST_CASE("by_content_type: a JSON answer is buffered whole, with the head's headers") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(200, R"({"id":1})", {{"Mcp-Session-Id", "abc"}}));
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), spec_for(server));
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK_FALSE(record.result.event_stream);
  CHECK(record.result.body == R"({"id":1})");
  CHECK(record.events.empty());
  CHECK(record.result.head.headers.find("mcp-session-id") ==
        std::optional<std::string_view>("abc"));
}

TEST_CASE("by_content_type: an event stream is parsed as SSE and its last event id kept") {
  LoopbackServer server;
  ScriptedResponse stream =
      ScriptedResponse::sse("id: e1\ndata: {\"a\":1}\n\nid: e2\ndata: {\"b\":2}\n\n", {3});
  stream.headers = {{"Content-Type", "Text/Event-Stream; charset=utf-8"}};
  server.enqueue(stream);
  testing::ClientThread thread;
  const auto record = testing::run_call(thread.client(), spec_for(server));
  REQUIRE_FALSE(record.result.error.has_value());
  CHECK(record.result.event_stream);
  REQUIRE(record.events.size() == 2);
  CHECK(record.events[1].second == R"({"b":2})");
  CHECK(record.result.body.empty());
  CHECK(record.result.last_event_id == "e2");
}

TEST_CASE("by_content_type: 202 with no body and an error status") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(202, ""));
  server.enqueue(ScriptedResponse::json(404, R"({"error":{"message":"no such session"}})"));
  testing::ClientThread thread;
  const auto accepted = testing::run_call(thread.client(), spec_for(server));
  REQUIRE_FALSE(accepted.result.error.has_value());
  CHECK(accepted.result.head.status == 202);
  CHECK(accepted.result.body.empty());
  const auto missing = testing::run_call(thread.client(), spec_for(server));
  REQUIRE(missing.result.error.has_value());
  CHECK(missing.result.error->kind == ErrorKind::not_found);
  CHECK(missing.result.error->status_code == std::optional<int>(404));
}

TEST_CASE("max_body_bytes and max_event_bytes end the call with a stream error, not retried") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(200, std::string(5000, 'x')));
  ScriptedResponse endless = ScriptedResponse::sse("data: " + std::string(5000, 'y'), {100});
  endless.headers = {{"Content-Type", "text/event-stream"}};
  server.enqueue(endless);
  testing::ClientThread thread;
  CallSpec spec = spec_for(server);
  spec.retry.max_retries = 2;
  spec.max_body_bytes = 1000;
  spec.max_event_bytes = 1000;
  const auto body = testing::run_call(thread.client(), spec);
  REQUIRE(body.result.error.has_value());
  CHECK(body.result.error->kind == ErrorKind::stream);
  CHECK(body.result.error->message.find("limit of 1000 bytes") != std::string::npos);
  CHECK(body.result.attempts == 1);
  const auto event = testing::run_call(thread.client(), spec);
  REQUIRE(event.result.error.has_value());
  CHECK(event.result.error->kind == ErrorKind::stream);
  CHECK(event.events.empty());
}

TEST_CASE("the fixed formats are unchanged: sse ignores the content type, whole has no events") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(200, "data: 1\n\n"));
  server.enqueue(ScriptedResponse::sse("data: 2\n\n"));
  testing::ClientThread thread;
  const auto sse = testing::run_call(thread.client(), spec_for(server, BodyFormat::sse));
  CHECK(sse.events.size() == 1);
  CHECK(sse.result.event_stream);
  const auto whole = testing::run_call(thread.client(), spec_for(server, BodyFormat::whole));
  CHECK(whole.events.empty());
  CHECK(whole.result.body == "data: 2\n\n");
}

}  // namespace
}  // namespace amplifier::transport
