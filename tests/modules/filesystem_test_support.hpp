// Helpers shared by the tool-filesystem tests of the writing and searching tools: a workspace
// with an allowed root beside a forbidden folder, and one-call tool runs.
#pragma once
#include "module_test_support.hpp"

#include <sys/stat.h>

namespace fstest {

using namespace modtest;

// root/ (the working directory) beside outside/ (never allowed), with a link out of root.
struct Workspace {
  TempDir dir;
  fs::path root = dir / "root";
  fs::path outside = dir / "outside";

  Workspace() {
    write_file(root / "notes.txt", "alpha\nbeta\ngamma\n");
    write_file(outside / "secret.txt", "top secret\n");
    fs::create_symlink(outside, root / "dir_out");
  }

  // tool-filesystem with `config` added to {working_dir: root}.
  std::string plan(json::object config = {}) const {
    config["working_dir"] = root.string();
    return plan_with("tools:\n  - module: tool-filesystem\n    config: " + yaml_json(config) + "\n");
  }
};

struct ToolOutcome {
  bool success = false;
  std::string output;
  std::string error;
};

inline ToolOutcome run(amplifier::Session &session, std::string_view tool, const json::value &input) {
  auto call = run_tool(session, tool, json::serialize(input));
  REQUIRE(call->wait_finished());
  REQUIRE(call->status == AMP_OK);
  auto result = call->result();
  ToolOutcome outcome{result.at("success").as_bool(), "", ""};
  if (result.at("output").is_string()) outcome.output = result.at("output").as_string();
  if (auto *error = result.if_contains("error"); error && error->is_object())
    outcome.error = error->at("message").as_string();
  return outcome;
}

// Runs `tool` expecting a failure whose message contains `expected`.
inline ToolOutcome run_failing(amplifier::Session &session, std::string_view tool,
                               const json::value &input, std::string_view expected) {
  ToolOutcome outcome = run(session, tool, input);
  CHECK_MESSAGE(!outcome.success, json::serialize(input));
  CHECK_MESSAGE(outcome.error.find(expected) != std::string::npos, outcome.error);
  return outcome;
}

// Every event of `name` the session emits, recorded while the recorder lives (declare it
// before the session's modules can emit, destroy it after the session).
class EventRecorder {
 public:
  EventRecorder(amplifier::Session &session, std::string name) : session_(session) {
    id_ = session.hooks().register_handler(std::move(name), [this](std::string_view, const json::object &data) {
      std::lock_guard lock(mutex_);
      events_.push_back(data);
      return amplifier::HookResult{};
    });
  }
  ~EventRecorder() { session_.hooks().unregister(id_); }
  std::vector<json::object> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  amplifier::Session &session_;
  amplifier::HookRegistry::HandlerId id_ = 0;
  mutable std::mutex mutex_;
  std::vector<json::object> events_;
};

inline std::vector<std::string> names_in(const fs::path &dir) {
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fstest
