// The real `amplifier` binary with a plan mounting tool-mcp: provider-mock asks for an MCP
// tool, the reference server (stdio) runs it, the model's next request carries its result;
// and `amplifier chat`'s /tools lists the server's tools.
#include "host_process.hpp"
#include "mcp_test_support.hpp"
#ifdef AMP_TMUX
#include "tmux_pane.hpp"
#endif

using namespace mcptest;

namespace {

std::string mcp_plan() {
  const json::object tool_config{
      {"user_config", false},
      {"servers",
       {{"everything",
         {{"command", node()}, {"args", json::array{everything_js().c_str(), "stdio"}}}}}}};
  return "session: {orchestrator: loop-basic, context: context-simple}\n"
         "providers:\n"
         "  - module: provider-mock\n"
         "    config:\n"
         "      responses:\n"
         "        - tool_calls:\n"
         "            - {id: call_1, name: mcp_everything_get-sum, input: {a: 19, b: 23}}\n"
         "        - text: \"the server says so\"\n"
         "tools:\n"
         "  - module: tool-mcp\n"
         "    config: " +
         yaml_json(tool_config) + "\n";
}

}  // namespace

TEST_CASE("amplifier run: the model calls an MCP tool and gets its result") {
  amp_host_test::Scratch scratch;
  const fs::path plan_file = scratch.write("plan.yaml", mcp_plan());
  auto result = amp_host_test::run_amplifier(
      {"run", "--plan", plan_file.string(), "--format", "jsonl", "add them"}, scratch.options());
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  bool saw_result = false;
  for (const auto &line : amp_test::lines_of(result.out)) {
    const json::object event = json::parse(line).as_object();
    if (event.at("event") != "tool:post") continue;
    const std::string data = json::serialize(event.at("data"));
    CHECK(data.find("mcp_everything_get-sum") != std::string::npos);
    saw_result = data.find("The sum of 19 and 23 is 42") != std::string::npos;
  }
  CHECK(saw_result);
}

#ifdef AMP_TMUX
// chat wants a terminal: a tmux pane (tests/terminal's TmuxPane).
TEST_CASE("amplifier chat: /tools lists the MCP server's tools") {
  amp_host_test::Scratch scratch;
  const fs::path plan_file = scratch.write("plan.yaml", mcp_plan());
  const std::string command = "env HOME='" + (scratch.dir / "home").string() + "' '" +
                              amp_host_test::kAmplifier + "' chat --plan '" + plan_file.string() +
                              "'";
  amp_test::TmuxPane pane(command, scratch.dir.string());
  REQUIRE_MESSAGE(pane.wait_for("amplifier> ", 30s), pane.screen());
  pane.type("/tools");
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("mcp_everything_get-sum", 20s), pane.screen());
  CHECK(pane.count("mcp_everything_echo") >= 1);
  pane.type("/exit");
  pane.key("Enter");
}
#endif
