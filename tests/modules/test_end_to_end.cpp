// A whole turn through the real orchestrator (loop-basic) with the modules of this folder:
// the mock calls list_directory, tool-filesystem lists a real directory, the mock answers
// quoting it, context-simple keeps the conversation and hooks-logging records the events.
#include "module_test_support.hpp"

#include <set>

using namespace modtest;

TEST_CASE("a turn with provider-mock, tool-filesystem, context-simple and hooks-logging") {
  LogCapture log;
  TempDir dir;
  const fs::path work = dir / "work";
  write_file(work / "alpha.txt", "a\n");
  write_file(work / "beta" / "inner.txt", "b\n");
  const fs::path events_file = dir / "events.jsonl";

  const json::object fs_config{{"working_dir", work.string()}};
  const json::object log_config{{"session_log_template", events_file.string()}};
  auto session = open_session(plan_with(
      "providers:\n  - module: provider-mock\n    config: {chunk_size: 5}\n"
      "tools:\n  - module: tool-filesystem\n    config: " + yaml_json(fs_config) + "\n"
      "hooks:\n  - module: hooks-logging\n    config: " + yaml_json(log_config) + "\n"));
  REQUIRE(session->load_failures().empty());

  const amplifier::TurnResult turn = session->execute("What is in this folder?");
  INFO("turn error: " << json::serialize(turn.error) << "\nlog:\n" << log.all());
  REQUIRE(turn.status == "success");
  CHECK(turn.response.find("list_directory") != std::string::npos);
  CHECK(turn.response.find("alpha.txt") != std::string::npos);
  CHECK(turn.response.find("beta/") != std::string::npos);

  // The conversation, thinking blocks with their signatures included (the mock would have
  // refused the second request had the orchestrator or the context dropped a signature).
  auto &context = *session->coordinator().context();
  amp::sdk::StringWriter out;
  REQUIRE(context.table<amp_context_vtable>()->get_messages(context.instance, &out) == AMP_OK);
  const auto messages = json::parse(out.text).as_array();
  REQUIRE(messages.size() >= 4);
  CHECK(messages[0].at("role") == "user");
  CHECK(messages[1].at("role") == "assistant");
  const auto &first_block = messages[1].at("content").at(0).as_object();
  CHECK(first_block.at("type") == "thinking");
  CHECK(first_block.contains("signature"));
  CHECK(messages.back().at("role") == "assistant");

  session->cleanup();
  std::set<std::string> logged;
  for (const auto &line : read_lines(events_file)) logged.insert(std::string(json::parse(line).at("event").as_string()));
  for (const char *expected : {"session:start", "prompt:submit", "provider:request", "tool:pre",
                               "tool:post", "artifact:read", "session:end"}) {
    CHECK_MESSAGE(logged.count(expected) == 1, expected);
  }
  CHECK(log.containing("protocol violation").empty());
}
