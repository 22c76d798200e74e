// The todo tool in a real Session: its results, its refusals, and its list coming back when a
// session with a persistent context is resumed (through the real files).
#include "todo_test_support.hpp"

namespace todotest {
namespace {

const std::string kSimplePlan = plan_with("tools:\n  - module: tool-todo\n");

TEST_CASE("todo tool: create, update and list, with the list in the result") {
  auto session = open_session(kSimplePlan);
  const TodoOutcome created =
      todo(*session, create({{{"content", "Read the code"}}, {{"content", "Fix the bug"}}}));
  REQUIRE(created.success);
  CHECK(
      created.says("Todo list created: 0 of 2 completed, 0 in progress, 2 pending\n"
                   "[ ] 1: Read the code\n[ ] 2: Fix the bug"));
  const TodoOutcome updated =
      todo(*session,
           {{"action", "update"},
            {"items",
             {{{"id", "1"}, {"status", "completed"}}, {{"id", 2}, {"status", "in_progress"}}}}});
  REQUIRE(updated.success);
  CHECK(updated.says("[x] 1: Read the code\n[>] 2: Fix the bug (in progress)"));
  CHECK(updated.result.at("completed") == 1);
  CHECK(updated.result.at("in_progress") == 1);
  const TodoOutcome listed = todo(*session, {{"action", "list"}});
  CHECK(listed.says("Todo list: 1 of 2 completed, 1 in progress, 0 pending"));
  CHECK(listed.result.at("todos").as_array().size() == 2);
  const TodoOutcome replaced = todo(*session, create({{{"content", "Only this"}}}));
  CHECK(replaced.says("[ ] 1: Only this\n"));
  CHECK_FALSE(replaced.says("Fix the bug"));
}

TEST_CASE("todo tool: refusals are results naming the problem; the list stays as it was") {
  auto session = open_session(kSimplePlan);
  REQUIRE(todo(*session, create({{{"content", "a"}}})).success);
  const TodoOutcome unknown =
      todo(*session, {{"action", "update"}, {"items", {{{"id", "7"}, {"status", "completed"}}}}});
  CHECK_FALSE(unknown.success);
  CHECK(unknown.says("items[0]: no item has id '7' (ids: 1)"));
  const TodoOutcome twice =
      todo(*session, create({{{"content", "x"}, {"id", "a"}}, {{"content", "y"}, {"id", "a"}}}));
  CHECK_FALSE(twice.success);
  CHECK(twice.says("id 'a' is used twice"));
  // The kernel checks the schema first: an unknown action never reaches the tool.
  const TodoOutcome action = todo(*session, {{"action", "delete"}});
  CHECK_FALSE(action.success);
  CHECK(todo(*session, {{"action", "list"}}).says("[ ] 1: a"));
}

TEST_CASE("todo tool: the list is saved with a persistent session and comes back on resume") {
  TempDir dir;
  const fs::path store = dir / "sessions";
  const std::string id = "todo-resume-session";
  // The first process: the model plans through the tool in a real turn.
  const json::array first_turn{
      json::object{{"tool_calls",
                    {todo_call(create({{{"content", "Step one"}, {"status", "completed"}},
                                       {{"content", "Step two"}}}))}}},
      json::object{{"text", "Planned."}}};
  {
    auto session =
        session_with_id(persistent_plan(store, first_turn, dir / "requests-1.jsonl"), id, false);
    CHECK(session->execute("plan the work").response == "Planned.");
  }
  const fs::path file = store / id / "todo.json";
  REQUIRE(fs::exists(file));
  const json::object saved = json::parse(read_text(file)).as_object();
  CHECK(saved.at("items").as_array().size() == 2);
  CHECK(saved.at("v") == 1);

  // A later process resumes the session: the list is there before anything else happens.
  auto resumed = session_with_id(persistent_plan(store, {}, dir / "requests-2.jsonl"), id, true);
  const TodoOutcome listed = todo(*resumed, {{"action", "list"}});
  CHECK(listed.says(
      "Todo list: 1 of 2 completed, 0 in progress, 1 pending\n[x] 1: Step one\n[ ] 2: Step two"));
}

TEST_CASE(
    "todo tool: a saved list that cannot be read is warned about and the session starts empty") {
  TempDir dir;
  const fs::path store = dir / "sessions";
  fs::create_directories(store / "broken-todo");
  write_file(store / "broken-todo" / "todo.json", "{\"items\": 5}");
  LogCapture log;
  auto session = session_with_id(persistent_plan(store, {}, dir / "r.jsonl"), "broken-todo", true);
  CHECK(todo(*session, {{"action", "list"}}).says("Todo list: empty"));
  CHECK_FALSE(log.containing("tool-todo: the saved list cannot be read, starting empty").empty());
}

TEST_CASE("todo tool: without a persistent context nothing is written") {
  TempDir dir;
  auto session = open_session(kSimplePlan);
  REQUIRE(todo(*session, create({{{"content", "in memory"}}})).success);
  CHECK(todo(*session, {{"action", "list"}}).says("in memory"));
}

}  // namespace
}  // namespace todotest
