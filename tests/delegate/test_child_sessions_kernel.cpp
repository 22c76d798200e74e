// The kernel's child sessions through the Session API: a child asks its user through the
// parent's approval handler, an immediate cancel of the parent ends a running child at once, and
// a session without a policy for children answers session_spawn with "unsupported".
#include "amplifier/child_sessions.hpp"
#include "amplifier/coordinator.hpp"
#include "amplifier/session.hpp"
#include "scripted_children.hpp"

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unistd.h>

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// `isolation`: how tool-delegate is mounted (in_process, or process: its own process, where
// session_spawn crosses the wire to the host).
std::string parent_plan(const std::string &hooks = "", const std::string &isolation = "in_process") {
  return R"(session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - module: provider-mock
    config: {responses: [{tool_calls: [{name: delegate, input: {agent: self, instruction: "work"}}]}, {text: "parent done"}]}
tools:
  - {module: tool-delegate, isolation: )" + isolation + R"(}
  - {module: tool-filesystem, config: {allowed_read_paths: ["."]}}
)" + hooks;
}

using amp_test::ScriptedChildren;

std::unique_ptr<amplifier::Session> session_with(const std::string &yaml,
                                                 std::shared_ptr<amplifier::ChildSessionPolicy> p) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.child_policy = std::move(p);
  auto session =
      std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(yaml, "test-plan"), options);
  return session;
}

}  // namespace

TEST_CASE("a child asks for approval through its parent's handler") {
  auto parent = session_with(
      parent_plan("hooks:\n  - {module: hooks-approval, config: {rules: [{tool: list_directory, "
                  "action: ask}]}}\n"),
      std::make_shared<ScriptedChildren>(
          R"([{tool_calls: [{name: list_directory, input: {path: "."}}]}, {text: "child done"}])"));
  std::mutex mutex;
  std::vector<json::object> asked;
  parent->coordinator().set_approval_handler([&](const json::object &request) {
    std::lock_guard lock(mutex);
    asked.push_back(request);
    return json::object{{"decision", "allow_once"}, {"reason", "test"}};
  });
  parent->initialize();
  auto result = parent->execute("go");
  CHECK(result.status == "success");
  CHECK(result.response == "parent done");
  std::lock_guard lock(mutex);
  REQUIRE(asked.size() == 1);
  CHECK(json::serialize(asked[0]).find("list_directory") != std::string::npos);
}

TEST_CASE("an immediate cancel of the parent ends its running child at once") {
  auto children = std::make_shared<ScriptedChildren>(R"([{text: "too slow", delay_ms: 60000}])");
  auto parent = session_with(parent_plan(), children);
  std::promise<std::string> spawned;
  std::atomic<bool> once{false};
  std::promise<void> child_ended;
  std::atomic<bool> ended_once{false};
  parent->hooks().register_handler(
      "delegate:agent_spawned", [&](std::string_view, const json::object &data) {
        if (!once.exchange(true))
          spawned.set_value(std::string(data.at("child_session_id").as_string()));
        return amplifier::HookResult{};
      });
  children->on_child = [&](amplifier::Session &child) {
    child.hooks().register_handler("session:end", [&](std::string_view, const json::object &) {
      if (!ended_once.exchange(true)) child_ended.set_value();
      return amplifier::HookResult{};
    });
  };
  parent->initialize();
  std::promise<amplifier::TurnResult> done;
  parent->start("go", [&](amplifier::TurnResult r) { done.set_value(std::move(r)); });
  auto child_id = spawned.get_future();
  REQUIRE(child_id.wait_for(20s) == std::future_status::ready);
  CHECK(!child_id.get().empty());
  const auto cancelled_at = std::chrono::steady_clock::now();
  parent->cancel(amplifier::CancelLevel::Immediate);
  auto turn = done.get_future();
  REQUIRE(turn.wait_for(20s) == std::future_status::ready);
  CHECK(turn.get().status == "cancelled");
  CHECK(child_ended.get_future().wait_for(20s) == std::future_status::ready);
  CHECK(std::chrono::steady_clock::now() - cancelled_at < 15s);
  parent->cleanup();
}

TEST_CASE("a session with no policy for children cannot spawn them, and says so") {
  // The untrusted party is the model asking through delegate; a module in its own process
  // reaches the same refusal over the wire.
  for (const std::string isolation : {"in_process", "process"}) {
    INFO(isolation);
    amplifier::SessionOptions options;
    options.module_path = {AMP_MODULE_DIR};
    amplifier::Session parent(amplifier::parse_mount_plan(parent_plan("", isolation), "test-plan"),
                              options);
    std::string output;
    parent.hooks().register_handler("tool:post", [&](std::string_view, const json::object &data) {
      output = json::serialize(data.at("result"));
      return amplifier::HookResult{};
    });
    parent.initialize();
    CHECK(!parent.coordinator().can_spawn());
    auto result = parent.execute("go");
    CHECK(result.status == "success");
    CHECK(output.find("cannot start sub-sessions") != std::string::npos);
  }
}

TEST_CASE("a delegate tool behind isolation: process starts its child as one in process does") {
  for (const std::string isolation : {"in_process", "process"}) {
    INFO(isolation);
    auto parent = session_with(parent_plan("", isolation),
                               std::make_shared<ScriptedChildren>(R"([{text: "child done"}])"));
    std::string output;
    parent->hooks().register_handler("tool:post", [&](std::string_view, const json::object &data) {
      output = json::serialize(data.at("result"));
      return amplifier::HookResult{};
    });
    parent->initialize();
    CHECK(parent->coordinator().can_spawn());
    auto result = parent->execute("go");
    CHECK(result.status == "success");
    CHECK(result.response == "parent done");
    INFO(output);
    CHECK(output.find("child done") != std::string::npos);
    CHECK(output.find("cannot start sub-sessions") == std::string::npos);
  }
}

// Confinement is the kernel's: the operator's host confines a session (serve does), and the
// file and command tools read that from the session, over their plan's config. The untrusted
// party is the plan (a client's or an agent's overlay) that widens their config to "/", and
// the model that asks for a file or a folder outside; a delegated child is confined the same.
TEST_CASE("a confined session keeps its file and command tools in its folder, over their config, and so do its children") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("amp-confined-" + std::to_string(::getpid()));
  const auto inside = root / "inside", outside = root / "outside";
  std::filesystem::create_directories(inside);
  std::filesystem::create_directories(outside);
  std::ofstream(inside / "mine.txt") << "in the folder";
  std::ofstream(outside / "secret.txt") << "outside the folder";
  const std::string secret = (outside / "secret.txt").string();
  const std::string calls =
      "[{name: read_file, input: {path: '" + secret + "'}}, {name: read_file, input: {path: "
      "mine.txt}}, {name: bash, input: {command: pwd}}, {name: bash, input: {command: pwd, "
      "working_dir: '" + outside.string() + "'}}]";
  const std::string plan = R"(session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config: {responses: [{tool_calls: )" + calls + R"(}, {tool_calls: [{name: delegate, input: {agent: self, instruction: "work"}}]}, {text: "parent done"}]}
tools:
  - {module: tool-delegate}
  - {module: tool-filesystem, config: {working_dir: "/", allowed_read_paths: ["/"], allowed_write_paths: ["/"]}}
  - {module: tool-bash, config: {working_dir: "/", allowed_paths: ["/"]}}
)";
  auto children = std::make_shared<ScriptedChildren>("[{tool_calls: " + calls + "}, {text: done}]");
  std::mutex mutex;
  std::vector<std::string> parent_results, child_results;
  auto record = [&mutex](std::vector<std::string> &into) {
    return [&mutex, &into](std::string_view, const json::object &data) {
      std::lock_guard lock(mutex);
      if (data.at("tool_name") != "delegate") into.push_back(json::serialize(data.at("result")));
      return amplifier::HookResult{};
    };
  };
  children->on_child = [&](amplifier::Session &child) {
    child.hooks().register_handler("tool:post", record(child_results));
  };
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.child_policy = children;
  options.confined_to = inside;
  amplifier::Session parent(amplifier::parse_mount_plan(plan, "test-plan"), options);
  parent.hooks().register_handler("tool:post", record(parent_results));
  parent.initialize();
  REQUIRE(parent.load_failures().empty());
  CHECK(parent.execute("go").status == "success");

  // The calls of one response run at once: their results come in any order.
  for (const auto *results : {&parent_results, &child_results}) {
    REQUIRE(results->size() == 4);
    std::string all;
    for (const auto &line : *results) all += line + "\n";
    INFO(all);
    CHECK(all.find("outside the folder") == std::string::npos);  // never read
    CHECK(all.find("Access denied: '" + secret + "' is outside the allowed read paths (" +
                   inside.string() + ")") != std::string::npos);
    CHECK(all.find("in the folder") != std::string::npos);
    CHECK(all.find(inside.string() + "\\nExit code: 0") != std::string::npos);  // bash's pwd
    CHECK(all.find("Access denied: '" + outside.string() +
                   "' is outside the allowed bash working directory paths") != std::string::npos);
  }
  std::filesystem::remove_all(root);
}
