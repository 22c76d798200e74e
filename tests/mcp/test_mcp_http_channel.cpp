// tool-mcp's Streamable HTTP channel against a scripted loopback server, for what the
// reference server does not do on demand: an answer stream cut in the middle and resumed with
// Last-Event-ID, and a session the server forgot (404).
#include "http_channel.hpp"
#include "rpc_client.hpp"

#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier/module_support/background_executor.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace tool_mcp;
using namespace std::chrono_literals;
using amplifier::loopback::Fault;
using amplifier::loopback::LoopbackServer;
using amplifier::loopback::ScriptedResponse;

namespace {

struct Connection {
  std::shared_ptr<amplifier::module_support::BackgroundExecutor> executor =
      amplifier::module_support::BackgroundExecutor::acquire(1);
  std::unique_ptr<amplifier::transport::HttpClient> http;
  std::unique_ptr<RpcClient> rpc;
  std::string closed_reason;

  explicit Connection(const LoopbackServer &server) {
    amplifier::transport::HttpClientOptions options;
    options.proxy = {};
    http = std::make_unique<amplifier::transport::HttpClient>(executor->context(), options);
    ServerConfig config;
    config.name = "scripted";
    config.transport = TransportKind::http;
    config.url = server.base_url() + "/mcp";
    const LogFn log = [](amp_log_level, const std::string &) {};
    RpcClient::Handlers handlers;
    handlers.log = log;
    handlers.on_closed = [this](const std::string &reason) { closed_reason = reason; };
    rpc = std::make_unique<RpcClient>(std::make_unique<HttpChannel>(*http, config, 1 << 20, log),
                                      std::move(handlers));
    rpc->open();
  }
  ~Connection() {
    rpc.reset();
    http.reset();
  }
  RpcOutcome request(std::string_view method) {
    return rpc->request(method, {}, Clock::now() + 10s);
  }
};

const std::string kInitialized =
    R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}})";

}  // namespace

TEST_CASE("http channel: the session id, and an answer stream resumed with Last-Event-ID") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(200, kInitialized, {{"Mcp-Session-Id", "s-1"}}));
  const std::string first_event =
      "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";
  ScriptedResponse cut = ScriptedResponse::sse(first_event + "id: e2\ndata: {\"jsonrpc\"");
  cut.fault = Fault::close;
  cut.fault_after_bytes = first_event.size() + 5;
  server.enqueue(cut);
  server.enqueue(ScriptedResponse::sse(
      "id: e3\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n"));

  Connection connection(server);
  REQUIRE(connection.request("initialize").status == RpcOutcome::Status::ok);
  const RpcOutcome resumed = connection.request("tools/call");
  CHECK_MESSAGE(resumed.status == RpcOutcome::Status::ok, resumed.message);

  const auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].header("accept") ==
        std::optional<std::string>("application/json, text/event-stream"));
  CHECK_FALSE(requests[0].header("mcp-session-id").has_value());
  CHECK(requests[1].header("mcp-session-id") == std::optional<std::string>("s-1"));
  CHECK(requests[2].method == "GET");
  CHECK(requests[2].header("last-event-id") == std::optional<std::string>("e1"));
  CHECK(requests[2].header("mcp-session-id") == std::optional<std::string>("s-1"));
}

TEST_CASE("http channel: a forgotten session (404) closes the connection; 202 is no answer") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(200, kInitialized, {{"Mcp-Session-Id", "s-2"}}));
  server.enqueue(ScriptedResponse::json(202, ""));
  server.enqueue(ScriptedResponse::json(
      404, R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}})"));
  Connection connection(server);
  REQUIRE(connection.request("initialize").status == RpcOutcome::Status::ok);
  const RpcOutcome unanswered = connection.request("ping");
  CHECK(unanswered.status == RpcOutcome::Status::failed);
  CHECK(unanswered.message.find("without answering") != std::string::npos);
  const RpcOutcome forgotten = connection.request("tools/list");
  CHECK(forgotten.status == RpcOutcome::Status::failed);
  CHECK(forgotten.message.find("no longer knows the session (HTTP 404") != std::string::npos);
  CHECK(connection.rpc->is_closed());
}
