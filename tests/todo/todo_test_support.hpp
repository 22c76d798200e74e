// tool-todo and hooks-todo-reminder in real Sessions: plans with a persistent context in a
// temporary store, provider-mock scripted to call the todo tool and recording what it is sent.
#pragma once
#include "module_test_support.hpp"

namespace todotest {

using namespace modtest;

using TodoOutcome = ToolOutcome;

inline TodoOutcome todo(amplifier::Session &session, const json::object &input) {
  TodoOutcome outcome = tool_outcome(run_tool(session, "todo", json::serialize(input)));
  REQUIRE(outcome.status == AMP_OK);
  return outcome;
}

inline json::object create(json::array items) {
  return {{"action", "create"}, {"items", std::move(items)}};
}

// A tool call provider-mock makes: {"name": "todo", "input": input}.
inline json::object todo_call(json::object input) {
  return {{"name", "todo"}, {"input", std::move(input)}};
}

// session / context / providers / tools / hooks as YAML, the context persistent in `store`.
inline std::string persistent_plan(const fs::path &store, const json::array &responses,
                                   const fs::path &recorded, const std::string &hooks = "") {
  const json::object mock{{"responses", responses}, {"record_requests", recorded.string()}};
  const json::object context{{"module", "context-persistent"},
                             {"config", {{"store_dir", store.string()}, {"fsync", false}}}};
  return "session:\n  orchestrator: loop-basic\n  context: " + yaml_json(context) +
         "\nproviders:\n  - module: provider-mock\n    config: " + yaml_json(mock) +
         "\ntools:\n  - module: tool-todo\n" + hooks;
}

inline std::unique_ptr<amplifier::Session> session_with_id(const std::string &yaml,
                                                           const std::string &id, bool resumed) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.session_id = id;
  options.resumed = resumed;
  auto session =
      std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(yaml, "test-plan"), options);
  session->initialize();
  return session;
}

}  // namespace todotest
