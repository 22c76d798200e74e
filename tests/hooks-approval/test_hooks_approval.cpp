// hooks-approval in a real Session: rules, the user's answers (simulated through the
// coordinator's approval handler), remembered allows, the events and the audit file; and a
// whole turn in which the user's answer decides whether a real bash command runs.
#include "module_test_support.hpp"

#include <atomic>
#include <cstdlib>
#include <thread>

using namespace modtest;

namespace {

struct ApprovalWorkspace {
  TempDir dir;
  fs::path audit = dir / "approvals.jsonl";

  std::string hooks_section(json::object config = {}) const {
    if (!config.contains("audit_log")) config["audit_log"] = audit.string();
    return "hooks:\n  - module: hooks-approval\n    config: " + yaml_json(config) + "\n";
  }
  std::string plan(json::object config = {}) const { return plan_with(hooks_section(std::move(config))); }

  std::vector<json::object> audit_lines() const {
    std::vector<json::object> lines;
    for (const auto &line : read_lines(audit)) lines.push_back(json::parse(line).as_object());
    return lines;
  }
};

// Plays the user: answers every approval request with the next scripted answer and keeps the
// requests it saw.
class SimulatedUser {
 public:
  explicit SimulatedUser(amplifier::Session &session, std::vector<json::object> answers = {})
      : answers_(std::move(answers)) {
    session.coordinator().set_approval_handler([this](const json::object &request) {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
      if (answers_.empty()) return json::object{{"decision", "deny"}, {"reason", "no script left"}};
      json::object answer = answers_.front();
      answers_.erase(answers_.begin());
      return answer;
    });
  }
  std::vector<json::object> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<json::object> answers_;
  std::vector<json::object> requests_;
};

// Records approval:* events.
class ApprovalEvents {
 public:
  explicit ApprovalEvents(amplifier::Session &session) {
    for (const char *name : {"approval:required", "approval:granted", "approval:denied"}) {
      session.hooks().register_handler(name, [this](std::string_view event, const json::object &data) {
        std::lock_guard lock(mutex_);
        seen_.emplace_back(std::string(event), data);
        return amplifier::HookResult{};
      });
    }
  }
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto &[name, data] : seen_) out.push_back(name);
    return out;
  }
  json::object last() const {
    std::lock_guard lock(mutex_);
    return seen_.back().second;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, json::object>> seen_;
};

json::object bash_call(std::string command, std::string id = "call_1") {
  return {{"tool_name", "bash"},
          {"tool_input", {{"command", std::move(command)}}},
          {"tool_call_id", std::move(id)},
          {"parallel_group_id", "group"}};
}

amplifier::HookResult pre(amplifier::Session &session, json::object data) {
  return session.hooks().emit("tool:pre", std::move(data));
}

}  // namespace

TEST_CASE("by default other tools run without a question and bash asks") {
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan({{"timeout_seconds", 42}}));
  REQUIRE(session->load_failures().empty());
  SimulatedUser user(*session, {json::object{{"decision", "allow_once"}, {"reason", "looks fine"}}});
  ApprovalEvents events(*session);

  auto read = pre(*session, {{"tool_name", "read_file"}, {"tool_input", {{"path", "a.txt"}}}, {"tool_call_id", "c0"}});
  CHECK(read.action == amplifier::HookAction::Continue);
  CHECK(user.requests().empty());

  auto ls = pre(*session, bash_call("ls -la"));
  CHECK(ls.action == amplifier::HookAction::Continue);
  REQUIRE(user.requests().size() == 1);
  const json::object request = user.requests()[0];
  CHECK(request.at("prompt") == "Allow bash to run: ls -la");
  CHECK(request.at("options") == json::array{"allow_once", "allow_always", "deny"});
  CHECK(request.at("timeout_seconds") == 42);
  CHECK(request.at("default") == "deny");
  CHECK(request.at("tool_name") == "bash");
  CHECK(request.at("details").at("input").at("command") == "ls -la");
  CHECK(request.at("details").at("tool_call_id") == "call_1");
  CHECK(events.names() == std::vector<std::string>{"approval:required", "approval:granted"});
  CHECK(events.last().at("decision") == "allow_once");
  CHECK(events.last().at("source") == "user");

  const auto audit = ws.audit_lines();
  REQUIRE(audit.size() == 2);
  CHECK(audit[0].at("tool") == "read_file");
  CHECK(audit[0].at("input") == R"({"path":"a.txt"})");
  CHECK(audit[0].at("decision") == "allow");
  CHECK(audit[0].at("source") == "rule");
  CHECK(audit[0].at("reason") == "allowed by default_action");
  CHECK(text_of(audit[0].at("session")) == session->id());
  CHECK(audit[0].at("time").as_string().size() == 24);
  CHECK(audit[1].at("tool") == "bash");
  CHECK(audit[1].at("input") == "ls -la");
  CHECK(audit[1].at("decision") == "allow_once");
  CHECK(audit[1].at("reason") == "looks fine");
  CHECK(audit[1].at("source") == "user");
  CHECK(audit[1].at("tool_call_id") == "call_1");
}

TEST_CASE("allow_always spares the user the same question for the rest of the session") {
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan());
  SimulatedUser user(*session, {json::object{{"decision", "allow_always"}},
                                json::object{{"decision", "deny"}, {"reason", "not that one"}}});
  CHECK(pre(*session, bash_call("make test")).action == amplifier::HookAction::Continue);
  CHECK(pre(*session, bash_call("make test", "call_2")).action == amplifier::HookAction::Continue);
  CHECK(user.requests().size() == 1);
  // Another command is another question.
  auto other = pre(*session, bash_call("make install", "call_3"));
  CHECK(other.action == amplifier::HookAction::Deny);
  CHECK(other.reason == "denied by the user: not that one");
  CHECK(user.requests().size() == 2);

  const auto audit = ws.audit_lines();
  REQUIRE(audit.size() == 3);
  CHECK(audit[0].at("decision") == "allow_always");
  CHECK(audit[1].at("decision") == "allow");
  CHECK(audit[1].at("source") == "user");
  CHECK(audit[1].at("reason") == "allowed always earlier in this session");
  CHECK(audit[2].at("decision") == "deny");
}

TEST_CASE("a denial, a timeout and a missing terminal all deny, each with its source") {
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan());
  ApprovalEvents events(*session);
  {
    SimulatedUser user(*session, {json::object{{"decision", "deny"}, {"reason", "denied by the user"}},
                                  json::object{{"decision", "deny"}, {"reason", "no answer within 300 seconds"}},
                                  json::object{{"decision", "deny"}, {"reason", "gone"}, {"source", "timeout"}},
                                  json::object{{"decision", "maybe"}},
                                  json::object{{"decision", "deny"}, {"reason", "no terminal to ask"}}});
    auto denied = pre(*session, bash_call("rm -rf build"));
    CHECK(denied.action == amplifier::HookAction::Deny);
    CHECK(denied.reason == "denied by the user");
    CHECK(events.last().at("source") == "user");

    auto timed_out = pre(*session, bash_call("sleep 1"));
    CHECK(timed_out.reason == "no answer to the approval request within 300 s; denied by default");
    CHECK(events.last().at("source") == "timeout");
    CHECK(pre(*session, bash_call("sleep 2")).reason.starts_with("no answer"));
    CHECK(pre(*session, bash_call("sleep 3")).reason == "unrecognised approval answer 'maybe'; denied");
    CHECK(pre(*session, bash_call("sleep 4")).reason.starts_with("approval is required but there is nobody to ask"));
    CHECK(events.last().at("source") == "no-terminal");
  }
  session->coordinator().set_approval_handler({});  // the host has nobody to ask
  auto unattended = pre(*session, bash_call("whoami"));
  CHECK(unattended.action == amplifier::HookAction::Deny);
  CHECK(unattended.reason.starts_with("approval is required but there is nobody to ask (no interactive user to ask)"));
  CHECK(events.names().back() == "approval:denied");
  CHECK(events.last().at("source") == "no-terminal");

  const auto audit = ws.audit_lines();
  REQUIRE(audit.size() == 6);
  const std::vector<std::string> sources{"user", "timeout", "timeout", "user", "no-terminal", "no-terminal"};
  for (std::size_t i = 0; i < audit.size(); ++i) {
    CHECK(audit[i].at("decision") == "deny");
    CHECK(text_of(audit[i].at("source")) == sources[i]);
  }
}

TEST_CASE("configured rules come first: first match wins, deny and allow need no question") {
  ApprovalWorkspace ws;
  const json::array rules{
      json::object{{"tool", "bash"}, {"command", "git status*"}, {"action", "allow"}},
      json::object{{"tool", "bash"}, {"command", "rm *"}, {"action", "deny"}},
      json::object{{"tool", "write_*"}, {"action", "ask"}},
      json::object{{"tool", "secret_*"}, {"action", "deny"}}};
  auto session = open_session(ws.plan({{"rules", rules}}));
  SimulatedUser user(*session, {json::object{{"decision", "allow_once"}}, json::object{{"decision", "allow_once"}}});
  ApprovalEvents events(*session);

  CHECK(pre(*session, bash_call("git status --short")).action == amplifier::HookAction::Continue);
  CHECK(user.requests().empty());

  // The allow rule needs every part of the line; the deny rule any part.
  auto sneaky = pre(*session, bash_call("git status; rm -rf ~"));
  CHECK(sneaky.action == amplifier::HookAction::Deny);
  CHECK(sneaky.reason == "denied by hooks-approval rule 2 (tool 'bash', command 'rm *')");
  CHECK(events.names() == std::vector<std::string>{"approval:denied"});
  CHECK(events.last().at("source") == "rule");
  CHECK(user.requests().empty());

  CHECK(pre(*session, {{"tool_name", "write_file"}, {"tool_input", {{"path", "x"}}}}).action ==
        amplifier::HookAction::Continue);
  REQUIRE(user.requests().size() == 1);
  CHECK(user.requests()[0].at("prompt") == R"(Allow write_file with input {"path":"x"})");
  CHECK(pre(*session, {{"tool_name", "secret_reader"}, {"tool_input", json::object{}}}).reason ==
        "denied by hooks-approval rule 4 (tool 'secret_*')");
  // Nothing configured matches: the built-in bash rule asks.
  CHECK(pre(*session, bash_call("ls")).action == amplifier::HookAction::Continue);
  CHECK(user.requests().size() == 2);
  CHECK(ws.audit_lines().back().at("source") == "user");
}

TEST_CASE("default_action and a rule can take bash out of the questions") {
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan({{"rules", json::array{json::object{{"tool", "bash"}, {"action", "allow"}}}},
                                       {"default_action", "deny"}}));
  SimulatedUser user(*session);
  CHECK(pre(*session, bash_call("anything")).action == amplifier::HookAction::Continue);
  auto other = pre(*session, {{"tool_name", "read_file"}, {"tool_input", json::object{}}});
  CHECK(other.action == amplifier::HookAction::Deny);
  CHECK(other.reason == "denied by hooks-approval default_action");
  CHECK(user.requests().empty());
}

TEST_CASE("hooks-approval runs before the usual tool:pre hooks and its deny stops them") {
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan());
  SimulatedUser user(*session, {json::object{{"decision", "deny"}}, json::object{{"decision", "allow_once"}}});
  std::atomic<int> later_hook_runs{0};
  session->hooks().register_handler("tool:pre", [&](std::string_view, const json::object &) {
    ++later_hook_runs;
    return amplifier::HookResult{};
  }, 0, "ordinary");
  CHECK(pre(*session, bash_call("ls")).action == amplifier::HookAction::Deny);
  CHECK(later_hook_runs == 0);
  CHECK(pre(*session, bash_call("ls", "call_2")).action == amplifier::HookAction::Continue);
  CHECK(later_hook_runs == 1);
}

TEST_CASE("parallel calls are asked one at a time, so allow_always covers the second") {
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan());
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0, asked = 0;
  // Runs before hooks-approval on each emit: tells when both calls are under way.
  session->hooks().register_handler("tool:pre", [&](std::string_view, const json::object &) {
    std::lock_guard lock(mutex);
    ++arrived;
    changed.notify_all();
    return amplifier::HookResult{};
  }, -2000);
  session->coordinator().set_approval_handler([&](const json::object &) {
    std::unique_lock lock(mutex);
    ++asked;
    // Answer the first question only once the second call has reached the hooks too.
    changed.wait_for(lock, 10s, [&] { return arrived == 2; });
    return json::object{{"decision", "allow_always"}};
  });
  std::vector<amplifier::HookAction> actions(2);
  std::thread first([&] { actions[0] = pre(*session, bash_call("npm test", "a")).action; });
  std::thread second([&] { actions[1] = pre(*session, bash_call("npm test", "b")).action; });
  first.join();
  second.join();
  CHECK(actions[0] == amplifier::HookAction::Continue);
  CHECK(actions[1] == amplifier::HookAction::Continue);
  CHECK(asked == 1);
  CHECK(ws.audit_lines().size() == 2);
}

TEST_CASE("the audit path expands ~ and {session_id}") {
  TempDir home;
  const char *previous = std::getenv("HOME");
  const std::string saved = previous ? previous : "";
  ::setenv("HOME", home.path().c_str(), 1);
  ApprovalWorkspace ws;
  auto session = open_session(ws.plan({{"audit_log", "~/audits/{session_id}.jsonl"}}));
  pre(*session, {{"tool_name", "read_file"}, {"tool_input", json::object{}}});
  if (previous) ::setenv("HOME", saved.c_str(), 1);
  else ::unsetenv("HOME");
  const fs::path expected = home.path() / "audits" / (session->id() + ".jsonl");
  REQUIRE(fs::exists(expected));
  CHECK(read_lines(expected).size() == 1);
  CHECK((fs::status(expected).permissions() & fs::perms::others_read) == fs::perms::none);
}

TEST_CASE("a malformed config fails the mount with a message naming the problem") {
  LogCapture log;
  ApprovalWorkspace ws;
  auto bad_action = open_session(ws.plan({{"rules", json::array{json::object{{"tool", "bash"}, {"action", "yes"}}}}}));
  REQUIRE(bad_action->load_failures().size() == 1);
  CHECK(bad_action->load_failures()[0].error.ends_with(
      "hooks-approval config: rules[0]: 'action' must be one of allow, deny, ask (got 'yes')"));

  auto typo_in_rule = open_session(
      ws.plan({{"rules", json::array{json::object{{"tool", "bash"}, {"comand", "rm *"}, {"action", "deny"}}}}}));
  REQUIRE(typo_in_rule->load_failures().size() == 1);
  CHECK(typo_in_rule->load_failures()[0].error.find("unknown key 'comand' is ignored (did you mean 'command'?)") !=
        std::string::npos);

  auto no_tool = open_session(ws.plan({{"rules", json::array{json::object{{"action", "deny"}}}}}));
  REQUIRE(no_tool->load_failures().size() == 1);
  CHECK(no_tool->load_failures()[0].error.find("'tool' is required") != std::string::npos);

  auto typo = open_session(ws.plan({{"default_acton", "deny"}}));
  CHECK(typo->load_failures().empty());
  CHECK(log.containing("unknown key 'default_acton' is ignored (did you mean 'default_action'?)").size() == 1);
}

TEST_CASE("in a whole turn the user's answer decides whether a real bash command runs") {
  ApprovalWorkspace ws;
  const fs::path work = ws.dir / "work";
  fs::create_directories(work);
  const json::object mock{
      {"responses", json::array{json::object{
                        {"text", "I will create the file."},
                        {"tool_calls", json::array{json::object{
                                           {"name", "bash"},
                                           {"input", {{"command", "touch created.txt && echo made it"}}}}}}}}}};
  const std::string plan = plan_with("providers:\n  - module: provider-mock\n    config: " + yaml_json(mock) +
                                     "\ntools:\n  - module: tool-bash\n    config: " +
                                     yaml_json(json::object{{"working_dir", work.string()}}) + "\n" +
                                     ws.hooks_section());
  {
    auto session = open_session(plan);
    REQUIRE(session->load_failures().empty());
    SimulatedUser user(*session, {json::object{{"decision", "deny"}, {"reason", "not today"}}});
    const auto turn = session->execute("make a file");
    REQUIRE(turn.status == "success");
    CHECK(user.requests().size() == 1);
    CHECK(!fs::exists(work / "created.txt"));
    CHECK(turn.response.find("Denied by hook: denied by the user: not today") != std::string::npos);
  }
  {
    auto session = open_session(plan);
    SimulatedUser user(*session, {json::object{{"decision", "allow_once"}}});
    const auto turn = session->execute("make a file");
    REQUIRE(turn.status == "success");
    CHECK(fs::exists(work / "created.txt"));
    CHECK(turn.response.find("made it") != std::string::npos);
  }
  const auto audit = ws.audit_lines();
  REQUIRE(audit.size() == 2);
  CHECK(audit[0].at("input") == "touch created.txt && echo made it");
  CHECK(audit[0].at("decision") == "deny");
  CHECK(audit[1].at("decision") == "allow_once");
}
