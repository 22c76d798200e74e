// tool-mcp with servers that misbehave (tests/mcp/fake_server.mjs), servers that cannot start
// or never answer, broken configs, and the order of the config sources.
#include "mcp_test_support.hpp"

#include <cstdlib>

using namespace mcptest;

TEST_CASE("pages of tools, garbage on stdout, invalid JSON-RPC and list_changed") {
  LogCapture log;
  auto session = open_session(plan({{"servers", {{"fake", fake_stdio()}}}}));
  // Six tools over three pages of tools/list (nextCursor).
  for (const char *tool : {"alpha", "beta", "gamma", "add_tool", "bad_response", "huge"})
    CHECK_MESSAGE(has_tool(*session, std::string("mcp_fake_") + tool), tool);

  // Lines that are not JSON are dropped (and logged); the answer after them counts.
  Outcome alpha = call(*session, "mcp_fake_alpha", {});
  CHECK(alpha.success);
  CHECK(alpha.output == "alpha ran");
  CHECK_FALSE(log.containing("dropped output that is not JSON").empty());

  Outcome bad = call(*session, "mcp_fake_bad_response", {});
  CHECK_FALSE(bad.success);
  CHECK(bad.result.at("error_kind") == "protocol");
  CHECK(bad.output.find("neither result nor error") != std::string::npos);

  // A tool the server adds and announces is mounted in the running session.
  CHECK_FALSE(has_tool(*session, "mcp_fake_extra"));
  CHECK(call(*session, "mcp_fake_add_tool", {}).success);
  CHECK(wait_until([&] { return has_tool(*session, "mcp_fake_extra"); }, 5000ms));
  CHECK(call(*session, "mcp_fake_extra", {}).output == "extra ran");
}

TEST_CASE("an oversized message is a typed tool error, and the server is reconnected") {
  auto session =
      open_session(plan({{"servers", {{"fake", fake_stdio()}}}, {"max_message_bytes", 100000}}));
  Outcome huge = call(*session, "mcp_fake_huge", {{"size", 500000}});
  CHECK_FALSE(huge.success);
  CHECK(huge.result.at("error_kind") == "server_unavailable");
  CHECK(huge.output.find("max_message_bytes") != std::string::npos);
  Outcome after = call(*session, "mcp_fake_alpha", {});
  CHECK_MESSAGE(after.success, after.output);
}

TEST_CASE(
    "servers that cannot start, never answer or speak another protocol do not hold up the "
    "session") {
  LogCapture log;
  const std::string marker = "31.4159";  // sleep's argument, to find it in /proc
  const json::object servers{
      {"ghost", {{"command", "/nonexistent/mcp-server"}}},
      {"nowhere", {{"command", "no-such-mcp-command-anywhere"}}},
      {"mute", {{"command", "sleep"}, {"args", json::array{marker.c_str()}}}},
      {"ancient", fake_stdio("old-version")},
      {"fake", fake_stdio()}};
  const auto started = Clock::now();
  {
    auto session = open_session(plan({{"servers", servers}, {"startup_timeout_seconds", 1.5}}));
    CHECK(Clock::now() - started < 5s);
    CHECK(has_tool(*session, "mcp_fake_alpha"));
    INFO(log.all());
    CHECK_FALSE(log.containing("'ghost'").empty());
    CHECK_FALSE(log.containing("No such file or directory").empty());
    CHECK_FALSE(
        log.containing("'no-such-mcp-command-anywhere': command not found on PATH").empty());
    // The mute server's own initialize timer fires when the session's startup wait ends: its
    // line may come a moment after open_session returns (the ASan run on dfa40de saw that).
    CHECK(log.wait_for("no answer to initialize within 1.5 s", std::chrono::seconds(10)));
    CHECK_FALSE(log.containing("protocol version '1999-01-01'").empty());

    // The working server works beside them.
    CHECK(call(*session, "mcp_fake_alpha", {}).success);
  }
  CHECK(Clock::now() - started < 12s);
  CHECK_MESSAGE(gone(marker), "a server that never answered outlived the session");
}

namespace {

// The reason a plan with this tool-mcp config failed to load the module.
std::string load_failure(const json::object &config) {
  LogCapture log;
  auto session = open_session(plan(config));
  REQUIRE(session->load_failures().size() == 1);
  return log.all();
}

}  // namespace

TEST_CASE("a broken config names the server and the problem") {
  CHECK(load_failure({{"servers", {{"broken", {{"args", json::array{"x"}}}}}}})
            .find("server 'broken': needs 'command' (a stdio server) or 'url'") !=
        std::string::npos);
  CHECK(load_failure({{"servers", {{"typed", {{"command", 5}}}}}})
            .find("server 'typed': 'command' must be a string, got an integer") !=
        std::string::npos);
  CHECK(load_failure({{"servers", {{"args", {{"command", "x"}, {"args", 3}}}}}})
            .find("server 'args': 'args'") != std::string::npos);
  CHECK(
      load_failure({{"servers", {{"both", {{"command", "x"}, {"url", "http://127.0.0.1:1/mcp"}}}}}})
          .find("server 'both': 'command' and 'url' are both set") != std::string::npos);
  CHECK(load_failure({{"servers", {{"web", {{"url", "ftp://example"}}}}}})
            .find("server 'web': 'url' must be an http:// or https:// URL") != std::string::npos);
  CHECK(load_failure({{"servers", {{"env", {{"command", "x"}, {"env", {{"A", 1}}}}}}}})
            .find("'A' must be a string") != std::string::npos);
  CHECK(load_failure({{"servers", json::array{}}}).find("'servers' must be an object") !=
        std::string::npos);
}

TEST_CASE("config sources: the user file, then the project file, then the plan") {
  TempDir dir;
  const json::object dead{{"command", "/nonexistent/mcp-server"}};
  const json::object fake = fake_stdio();
  write_file(dir / "xdg" / "amplifier" / "mcp.json",
             json::serialize(json::object{{"mcpServers", {{"a", fake}, {"b", dead}}}}));
  write_file(dir / "project" / ".amplifier" / "mcp.json",
             json::serialize(json::object{{"servers", {{"b", fake}, {"c", dead}}}}));
  const char *previous = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = previous ? previous : "";
  ::setenv("XDG_CONFIG_HOME", (dir / "xdg").c_str(), 1);
  const std::string config = json::serialize(json::object{{"user_config", true},
                                                          {"project_config", true},
                                                          {"working_dir", (dir / "project").string()},
                                                          {"servers", {{"c", fake}}}});
  // A folder the operator has not trusted (a cloned repository): its file starts nothing.
  auto untrusted = open_session(plan(json::parse(config).as_object()));
  CHECK(has_tool(*untrusted, "mcp_a_alpha"));
  CHECK_FALSE(has_tool(*untrusted, "mcp_b_alpha"));  // the user's dead b: the project's is ignored
  CHECK(has_tool(*untrusted, "mcp_c_alpha"));
  // Once `amplifier trust` listed it, the project file counts.
  write_file(dir / "xdg" / "amplifier" / "trusted-folders",
             std::filesystem::canonical(dir / "project").string() + "\n");
  auto session = open_session(plan(json::parse(config).as_object()));
  previous ? ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1) : ::unsetenv("XDG_CONFIG_HOME");
  CHECK(has_tool(*session, "mcp_a_alpha"));  // user file
  CHECK(has_tool(*session, "mcp_b_alpha"));  // the project file's b over the user's
  CHECK(has_tool(*session, "mcp_c_alpha"));  // the plan's c over the project's
}
