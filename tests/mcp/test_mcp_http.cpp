// tool-mcp against the reference MCP server in Streamable HTTP mode (its own process on a
// loopback port): the session id, JSON and event-stream answers, errors, cancellation, and a
// server restarted under a live session (its session is gone: a new handshake).
#include "mcp_test_support.hpp"

using namespace mcptest;

namespace {

json::object http_config(const HttpServer &server) {
  return {{"servers", {{"web", {{"url", server.url()}, {"headers", {{"X-Test", "1"}}}}}}}};
}

}  // namespace

TEST_CASE("http: the reference server's tools are mounted and called") {
  HttpServer server;
  auto session = open_session(plan(http_config(server)));
  REQUIRE(has_tool(*session, "mcp_web_echo"));
  Outcome echo = call(*session, "mcp_web_echo", {{"message", "over http"}});
  CHECK_MESSAGE(echo.success, echo.output);
  CHECK(echo.output == "Echo: over http");
  Outcome sum = call(*session, "mcp_web_get-sum", {{"a", 20}, {"b", 22}});
  CHECK(sum.output.find("42") != std::string::npos);
  Outcome refused = call(*session, "mcp_web_get-sum", {{"a", 1}});
  CHECK_FALSE(refused.success);
  Outcome image = call(*session, "mcp_web_get-tiny-image", {});
  CHECK(image.result.at("output").is_array());
}

TEST_CASE("http: a cancelled call ends at once; the session goes on") {
  HttpServer server;
  auto session = open_session(plan(http_config(server)));
  check_cancelled_promptly(*session, "mcp_web_trigger-long-running-operation");
  CHECK(call(*session, "mcp_web_echo", {{"message", "after"}}).success);
}

TEST_CASE("http: a server restarted under the session is reconnected with a new session") {
  auto server = std::make_unique<HttpServer>();
  const int port = server->port();
  auto session = open_session(plan(http_config(*server)));
  REQUIRE(call(*session, "mcp_web_echo", {{"message", "one"}}).success);
  server->kill();
  Outcome down = call(*session, "mcp_web_echo", {{"message", "two"}});
  CHECK_FALSE(down.success);
  CHECK(down.result.at("error_kind") == "server_unavailable");
  server = std::make_unique<HttpServer>(port);  // knows no session: 404, a new handshake
  Outcome back = finish(run_tool(*session, "mcp_web_echo", R"({"message":"three"})"));
  if (!back.success) back = call(*session, "mcp_web_echo", {{"message", "three"}});
  CHECK_MESSAGE(back.success, back.output);
  CHECK(back.output == "Echo: three");
}
