// hooks-todo-reminder through a real session on provider-mock, which records every request it
// is sent: the open list reaches the provider before each step, never once everything is
// completed, and never the stored (persisted) history.
#include "todo_test_support.hpp"

namespace todotest {
namespace {

// The reminder's preamble: nothing else says it (the JSON of a request escapes its tag's quotes).
constexpr std::string_view kMarker = "Your todo list for this task";

bool mentions(const std::string &text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

json::object update_all_completed() {
  return {
      {"action", "update"},
      {"items", {{{"id", "1"}, {"status", "completed"}}, {{"id", "2"}, {"status", "completed"}}}}};
}

TEST_CASE("reminder: injected into each request while items are open, ephemeral, then gone") {
  TempDir dir;
  const fs::path store = dir / "sessions";
  const fs::path recorded = dir / "requests.jsonl";
  const json::array responses{
      // Turn 1: the model plans, then answers.
      json::object{{"tool_calls",
                    {todo_call(create({{{"content", "Write the parser"}, {"status", "in_progress"}},
                                       {{"content", "Test the parser"}}}))}}},
      json::object{{"text", "Started."}},
      // Turn 2: the model finishes both, then answers.
      json::object{{"tool_calls", {todo_call(update_all_completed())}}},
      json::object{{"text", "All done."}}};
  const std::string hooks = "hooks:\n  - module: hooks-todo-reminder\n";
  auto session =
      session_with_id(persistent_plan(store, responses, recorded, hooks), "reminder-1", false);
  CHECK(session->execute("build a parser").response == "Started.");
  CHECK(session->execute("finish it").response == "All done.");

  const std::vector<std::string> requests = read_lines(recorded);
  REQUIRE(requests.size() == 4);
  CHECK_FALSE(mentions(requests[0], kMarker));  // no list yet
  CHECK(mentions(requests[1], kMarker));        // after create: two open items
  CHECK(mentions(requests[1], "[>] 1: Write the parser (in progress)"));
  CHECK(mentions(requests[1], "[ ] 2: Test the parser"));
  CHECK(mentions(requests[1], "0 of 2 completed"));
  CHECK(mentions(requests[2], kMarker));        // the next turn starts with items still open
  CHECK_FALSE(mentions(requests[3], kMarker));  // all completed: no reminder

  // Ephemeral: the model saw it, the conversation did not keep it, in memory or on disk.
  const std::string transcript = read_text(store / "reminder-1" / "transcript.jsonl");
  CHECK(mentions(transcript, "Write the parser"));  // the tool's own result is history
  CHECK_FALSE(mentions(transcript, kMarker));
  const json::value last_request = json::parse(requests[3]);
  CHECK_FALSE(mentions(json::serialize(last_request.at("messages")), kMarker));
}

TEST_CASE("reminder: without tool-todo, or with an empty list, nothing is injected") {
  TempDir dir;
  const fs::path recorded = dir / "requests.jsonl";
  const json::object mock{{"responses", json::array{json::object{{"text", "hi"}}}},
                          {"record_requests", recorded.string()}};
  auto session = open_session(
      plan_with("providers:\n  - module: provider-mock\n    config: " + yaml_json(mock) +
                "\nhooks:\n  - module: hooks-todo-reminder\n"));
  CHECK(session->execute("hello").response == "hi");
  const auto requests = read_lines(recorded);
  REQUIRE(requests.size() == 1);
  CHECK_FALSE(mentions(requests[0], kMarker));
}

}  // namespace
}  // namespace todotest
