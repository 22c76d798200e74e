// tool-mcp against the reference MCP server over stdio: listing, calls, error results,
// images, the output cap, cancellation (the server is told), a server killed mid-session (a
// tool error, then a reconnect), and no process left behind.
#include "mcp_test_support.hpp"

using namespace mcptest;

namespace {

json::object everything_config(const std::string &marker, json::object extra = {}) {
  extra["servers"] = json::object{{"everything", everything_stdio(marker)}};
  return extra;
}

}  // namespace

TEST_CASE("stdio: the reference server's tools are mounted and called") {
  const std::string marker = unique_marker("stdio");
  {
    auto session = open_session(plan(everything_config(marker)));
    REQUIRE(session->load_failures().empty());
    const json::array specs = session->coordinator().tool_specs();
    json::object echo_spec;
    for (const auto &spec : specs)
      if (spec.at("name") == "mcp_everything_echo") echo_spec = spec.as_object();
    REQUIRE_MESSAGE(!echo_spec.empty(), json::serialize(specs));
    CHECK(echo_spec.at("parameters").at("properties").as_object().contains("message"));
    CHECK(text_of(echo_spec.at("description")).find("MCP server 'everything'") !=
          std::string::npos);
    CHECK(has_tool(*session, "mcp_everything_get-sum"));
    CHECK(has_tool(*session, "mcp_everything_trigger-long-running-operation"));

    Outcome echo = call(*session, "mcp_everything_echo", {{"message", "hello from amplifier"}});
    CHECK(echo.success);
    CHECK(echo.output == "Echo: hello from amplifier");
    CHECK(echo.result.at("server") == "everything");

    Outcome sum = call(*session, "mcp_everything_get-sum", {{"a", 2}, {"b", 40}});
    CHECK(sum.success);
    CHECK(sum.output.find("42") != std::string::npos);

    // isError: the server's own validation refuses the input.
    Outcome refused = call(*session, "mcp_everything_get-sum", {{"a", 1}, {"b", "two"}});
    CHECK_FALSE(refused.success);
    CHECK(text_of(refused.result.at("error").at("message")).find("b") != std::string::npos);

    // An image is kept as the kernel's image block, beside the text.
    Outcome image = call(*session, "mcp_everything_get-tiny-image", {});
    REQUIRE(image.success);
    const json::array &blocks = image.result.at("output").as_array();
    bool has_image = false;
    for (const auto &block : blocks) {
      if (block.at("type") != "image") continue;
      has_image = true;
      CHECK(block.at("source").at("type") == "base64");
      CHECK(block.at("source").at("media_type") == "image/png");
      CHECK(block.at("source").at("data").as_string().size() > 100);
    }
    CHECK(has_image);
    REQUIRE_FALSE(processes_with(marker).empty());
  }
  CHECK_MESSAGE(gone(marker), "the server outlived its session");
}

TEST_CASE("stdio: the output cap cuts text with a note; the call timeout ends a call") {
  const std::string marker = unique_marker("cap");
  auto session = open_session(
      plan(everything_config(marker, {{"max_output_chars", 100}, {"timeout_seconds", 1}})));
  Outcome echo = call(*session, "mcp_everything_echo", {{"message", std::string(500, 'z')}});
  CHECK(echo.success);
  CHECK(echo.result.at("truncated") == true);
  CHECK(echo.output.find(std::string(94, 'z')) != std::string::npos);
  CHECK(echo.output.find(std::string(200, 'z')) == std::string::npos);
  CHECK(echo.output.find("[output cut: 100 of 506 characters shown") != std::string::npos);

  const auto started = Clock::now();
  Outcome slow = call(*session, "mcp_everything_trigger-long-running-operation",
                      {{"duration", 20}, {"steps", 20}});
  CHECK(Clock::now() - started < 3s);
  CHECK_FALSE(slow.success);
  CHECK(slow.result.at("error_kind") == "timeout");
  CHECK(slow.output.find("timed out after 1 s (tool-mcp timeout_seconds)") != std::string::npos);
}

TEST_CASE("stdio: a cancelled call ends at once and the server is told") {
  TempDir dir;
  const fs::path sent = dir / "sent.jsonl";
  // A tee in front of the server records what the client sends it.
  json::object server{{"command", "/bin/sh"},
                      {"args", json::array{"-c", "tee -a \"$0\" | exec \"$1\" \"$2\" stdio",
                                           sent.c_str(), node().c_str(), everything_js().c_str()}}};
  auto session = open_session(plan({{"servers", {{"everything", server}}}}));
  check_cancelled_promptly(*session, "mcp_everything_trigger-long-running-operation");

  std::string call_id;
  CHECK(wait_until(
      [&] { return read_text(sent).find("notifications/cancelled") != std::string::npos; },
      3000ms));
  for (const auto &line : read_lines(sent)) {
    const json::object message = json::parse(line).as_object();
    if (message.contains("method") && message.at("method") == "tools/call")
      call_id = json::serialize(message.at("id"));
    if (message.contains("method") && message.at("method") == "notifications/cancelled")
      CHECK(json::serialize(message.at("params").at("requestId")) == call_id);
  }
  // The server is still usable.
  CHECK(call(*session, "mcp_everything_echo", {{"message", "still here"}}).success);
}

TEST_CASE("stdio: a server killed mid-session gives a tool error, then comes back") {
  const std::string marker = unique_marker("kill");
  auto session = open_session(plan(everything_config(marker)));
  REQUIRE(has_tool(*session, "mcp_everything_echo"));
  auto running = run_tool(*session, "mcp_everything_trigger-long-running-operation",
                          R"({"duration": 30, "steps": 30})");
  std::this_thread::sleep_for(300ms);
  const auto pids = processes_with(marker);
  REQUIRE(pids.size() == 1);
  ::kill(pids[0], SIGKILL);
  Outcome failed = finish(running, 10s);
  CHECK_FALSE(failed.success);
  CHECK(failed.result.at("error_kind") == "server_unavailable");
  CHECK(failed.output.find("killed by signal 9") != std::string::npos);

  // Reconnected with backoff: the next call waits for it (at most the startup timeout).
  Outcome echo = call(*session, "mcp_everything_echo", {{"message", "again"}});
  CHECK_MESSAGE(echo.success, echo.output);
  CHECK(echo.output == "Echo: again");
}
