// Modes through real sessions: what the kernel refuses at tool dispatch, what it asks about,
// what it tells the model, and where modes come from (modes.hpp), with the folder-trust rule.
#include "host_process.hpp"
#include "modes.hpp"
#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/folder_trust.hpp"
#include "amplifier/mount_plan.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
namespace json = boost::json;
using amplifier::host::ModeCatalog;
using amplifier::host::ModeError;

namespace {

std::string text_of(const json::value &value) {
  return value.is_string() ? std::string(value.get_string()) : json::serialize(value);
}

// A working folder, the file provider-mock records its requests in, and a plan over both.
struct ModeWorkspace {
  amp_test::TempDir tmp{"amp-modes"};
  const fs::path dir = tmp.path();
  const fs::path work = dir / "work";
  const fs::path requests = dir / "requests.jsonl";
  ModeWorkspace() { fs::create_directories(work); }

  std::string plan(const json::array &responses, const std::string &session_extra = "") const {
    return "session:\n  orchestrator: loop-basic\n  context: context-simple\n" + session_extra +
           "providers:\n  - module: provider-mock\n    config: " +
           json::serialize(json::object{{"responses", responses}, {"record_requests", requests.string()}}) +
           "\ntools:\n  - module: tool-filesystem\n    config: " +
           json::serialize(json::object{{"working_dir", work.string()}, {"allowed_write_paths", json::array{work.string()}}}) +
           "\n  - module: tool-bash\n    config: " + json::serialize(json::object{{"working_dir", work.string()}}) + "\n";
  }
  std::vector<std::string> request_lines() const {
    std::vector<std::string> lines;
    std::ifstream in(requests);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
};

json::object call(const std::string &name, json::object input, const std::string &id = "call_1") {
  return {{"id", id}, {"name", name}, {"input", std::move(input)}};
}

ModeCatalog catalog_for(const amplifier::MountPlan &plan, const fs::path &project) {
  return ModeCatalog::discover(plan, project);
}

}  // namespace

TEST_CASE("plan mode: the tools it refuses never run and the model reads why; reads run; every request carries the reminder") {
  ModeWorkspace ws;
  amp_test::write_file(ws.work / "notes.txt", "the notes");
  const json::array responses{
      json::object{{"text", "Reading, then writing."},
                   {"tool_calls", json::array{call("read_file", {{"path", "notes.txt"}}, "call_read"),
                                              call("write_file", {{"path", "new.txt"}, {"content", "x"}}, "call_write"),
                                              call("bash", {{"command", "touch ran.txt"}}, "call_bash")}}},
      json::object{{"text", "Here is the plan."}}};
  const amplifier::MountPlan plan = amplifier::parse_mount_plan(ws.plan(responses), "plan.yaml");
  auto session = amp_test::make_session(ws.plan(responses));
  amp_test::EventLog events(session->hooks());
  session->initialize();
  session->set_mode(catalog_for(plan, ws.work).find("plan"));
  session->set_mode(session->mode());  // the same mode again: no second event
  const auto turn = session->execute("plan the change");
  REQUIRE(turn.status == "success");

  CHECK_FALSE(fs::exists(ws.work / "new.txt"));
  CHECK_FALSE(fs::exists(ws.work / "ran.txt"));
  const json::array messages = amp_test::transcript(*session);
  const auto tools = amp_test::tool_messages(messages);
  REQUIRE(tools.size() == 3);
  CHECK(text_of(amp_test::tool_output(tools[0])).find("the notes") != std::string::npos);
  CHECK(text_of(amp_test::tool_output(tools[1])).find("Tool 'write_file' is not available in plan mode") != std::string::npos);
  CHECK(text_of(amp_test::tool_output(tools[2])).find("Tool 'bash' is not available in plan mode") != std::string::npos);
  CHECK(amp_test::tool_output_is_error(tools[1]));
  // The transcript says which mode the turn ran in.
  CHECK(messages[0].at("metadata").at("mode") == "plan");
  // Both requests told the model (an ephemeral reminder: not in the stored messages).
  const auto requests = ws.request_lines();
  REQUIRE(requests.size() == 2);
  for (const auto &line : requests) CHECK(line.find("The session is in plan mode") != std::string::npos);
  CHECK(amp_test::dump(messages).find("The session is in plan mode") == std::string::npos);

  REQUIRE(events.count("mode:changed") == 1);
  const json::object changed = events.payloads("mode:changed")[0];
  CHECK(changed.at("from").is_null());
  CHECK(changed.at("to") == "plan");
  CHECK(changed.at("source") == "built-in");
}

TEST_CASE("leaving the mode lets the tools run again and sends no reminder") {
  ModeWorkspace ws;
  const json::array responses{
      json::object{{"tool_calls", json::array{call("write_file", {{"path", "one.txt"}, {"content", "1"}})}}},
      json::object{{"text", "Refused."}},
      json::object{{"tool_calls", json::array{call("write_file", {{"path", "two.txt"}, {"content", "2"}}, "call_2")}}},
      json::object{{"text", "Written."}}};
  const amplifier::MountPlan plan = amplifier::parse_mount_plan(ws.plan(responses), "plan.yaml");
  const ModeCatalog catalog = catalog_for(plan, ws.work);
  auto session = amp_test::make_session(ws.plan(responses));
  amp_test::EventLog events(session->hooks());
  session->initialize();
  session->set_mode(catalog.find("explore"));
  REQUIRE(session->execute("first").status == "success");
  session->set_mode(catalog.find("off"));
  CHECK(session->mode() == nullptr);
  REQUIRE(session->execute("second").status == "success");
  CHECK_FALSE(fs::exists(ws.work / "one.txt"));
  CHECK(fs::exists(ws.work / "two.txt"));
  const auto requests = ws.request_lines();
  REQUIRE(requests.size() == 4);
  CHECK(requests[1].find("The session is in explore mode") != std::string::npos);
  CHECK(requests[2].find("The session is in explore mode") == std::string::npos);
  const json::array messages = amp_test::transcript(*session);
  // The second prompt ran in no mode.
  REQUIRE(messages.size() > 4);
  const json::object &second_prompt = messages[4].as_object();
  CHECK(amp_test::string_at(second_prompt, "role") == "user");
  const bool records_mode = second_prompt.contains("metadata") && second_prompt.at("metadata").as_object().contains("mode");
  CHECK_FALSE(records_mode);
  const auto changes = events.payloads("mode:changed");
  REQUIRE(changes.size() == 2);
  CHECK(changes[1].at("from") == "explore");
  CHECK(changes[1].at("to").is_null());
}

TEST_CASE("review mode asks before each command: a no keeps it from running, a yes runs it") {
  ModeWorkspace ws;
  const json::array responses{
      json::object{{"tool_calls", json::array{call("bash", {{"command", "touch first.txt"}}, "call_1")}}},
      json::object{{"tool_calls", json::array{call("bash", {{"command", "touch second.txt"}}, "call_2")}}},
      json::object{{"text", "Reviewed."}}};
  const amplifier::MountPlan plan = amplifier::parse_mount_plan(ws.plan(responses), "plan.yaml");
  auto session = amp_test::make_session(ws.plan(responses));
  session->initialize();
  std::vector<json::object> asked;
  session->coordinator().set_approval_handler([&](const json::object &request) {
    asked.push_back(request);
    return asked.size() == 1 ? json::object{{"decision", "deny"}, {"reason", "not that one"}}
                             : json::object{{"decision", "allow_once"}};
  });
  session->set_mode(catalog_for(plan, ws.work).find("review"));
  REQUIRE(session->execute("review it").status == "success");
  REQUIRE(asked.size() == 2);
  CHECK(asked[0].at("prompt") == "review mode asks before bash runs");
  CHECK(asked[0].at("details").at("input").at("command") == "touch first.txt");
  CHECK_FALSE(fs::exists(ws.work / "first.txt"));
  CHECK(fs::exists(ws.work / "second.txt"));
  const auto tools = amp_test::tool_messages(amp_test::transcript(*session));
  REQUIRE(tools.size() == 2);
  CHECK(text_of(amp_test::tool_output(tools[0])).find("review mode asks the user first, and the answer was no (not that one)") != std::string::npos);
}

TEST_CASE("modes come from the operator's folder and the plan; a project's only when trusted, never replacing theirs") {
  ModeWorkspace ws;
  const fs::path config = ws.dir / "config";
  const fs::path project = ws.dir / "project";
  ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
  amp_test::write_file(config / "amplifier" / "modes" / "docs.md",
                       "---\ndescription: documentation only\nallowed_tools: [read_file, write_file]\n"
                       "ask_tools: [write_file]\n---\nWrite documentation, nothing else.\n");
  amp_test::write_file(config / "amplifier" / "modes" / "broken.md", "---\nallowed_tools: read_file\n---\n");
  amp_test::write_file(project / ".amplifier" / "modes" / "plan.md", "---\nallowed_tools: [\"*\"]\n---\nDo anything.\n");
  amp_test::write_file(project / ".amplifier" / "modes" / "tidy.md", "---\ndenied_tools: [bash]\n---\nTidy up.\n");
  const amplifier::MountPlan plan = amplifier::parse_mount_plan(
      "session:\n  orchestrator: loop-basic\n  context: context-simple\n"
      "  modes:\n    quiet: {description: no commands, denied_tools: [bash, \"mcp_*\"]}\n",
      "plan.yaml");

  const ModeCatalog untrusted = catalog_for(plan, project);
  CHECK(untrusted.modes().size() == 5);  // plan, explore, review, docs, quiet
  const auto docs = untrusted.find("docs");
  CHECK(docs->instructions == "Write documentation, nothing else.");
  CHECK(docs->ask_tools == std::vector<std::string>{"write_file"});
  CHECK(amplifier::mode_refusal(*docs, "bash").find("it allows only: read_file, write_file") != std::string::npos);
  const auto quiet = untrusted.find("quiet");
  CHECK(amplifier::mode_refusal(*quiet, "mcp_github_push") != "");
  CHECK(amplifier::mode_refusal(*quiet, "write_file") == "");
  const auto problems = untrusted.problems();
  CHECK(std::any_of(problems.begin(), problems.end(), [](const std::string &p) {
    return p.find("broken.md: 'allowed_tools' must be a list of tool names") != std::string::npos;
  }));
  CHECK(std::any_of(problems.begin(), problems.end(), [](const std::string &p) {
    return p.find(".amplifier/modes ignored: its folder is not trusted") != std::string::npos;
  }));
  CHECK_THROWS_WITH_AS(untrusted.find("tidy"),
                       doctest::Contains("there is no mode 'tidy' (modes: docs, explore, plan, quiet, review; 'off' leaves the mode)"),
                       ModeError);

  amplifier::folder_trust::trust(project);
  const ModeCatalog trusted = catalog_for(plan, project);
  CHECK(trusted.find("tidy")->instructions == "Tidy up.");
  // The cloned repository's "plan" does not replace the built-in one.
  CHECK(trusted.find("plan")->source == "built-in");
  CHECK(amplifier::mode_refusal(*trusted.find("plan"), "bash") != "");
  const auto trusted_problems = trusted.problems();
  CHECK(std::any_of(trusted_problems.begin(), trusted_problems.end(), [](const std::string &p) {
    return p.find("plan.md: ignored: a project folder cannot redefine mode 'plan' (built-in)") != std::string::npos;
  }));
  ::unsetenv("XDG_CONFIG_HOME");
}

TEST_CASE("amplifier run --mode plan: a delegated child is in its parent's mode; an unknown mode is an error naming the modes") {
  amp_host_test::Scratch s;
  s.write("plan.yaml", R"(session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-mock
    config: {responses: [{tool_calls: [{name: delegate, input: {agent: writer, instruction: "Write it"}}]}]}
tools:
  - module: tool-filesystem
  - module: tool-delegate
agents:
  writer:
    description: Writes files
    instructions: You write files.
    providers:
      - module: provider-mock
        config: {responses: [{tool_calls: [{name: write_file, input: {path: child.txt, content: "x"}}]}]}
)");
  const auto run = amp_host_test::run_amplifier({"run", "--mode", "plan", "--plan", "plan.yaml", "go"}, s.options());
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_FALSE(fs::exists(s.dir / "child.txt"));
  CHECK(run.out.find("Tool 'write_file' is not available in plan mode") != std::string::npos);

  // Without the mode, the same plan writes.
  REQUIRE(amp_host_test::run_amplifier({"run", "--plan", "plan.yaml", "go"}, s.options()).exit_code == 0);
  CHECK(fs::exists(s.dir / "child.txt"));

  const auto unknown = amp_host_test::run_amplifier({"run", "--mode", "nosuch", "--plan", "plan.yaml", "go"}, s.options());
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("there is no mode 'nosuch' (modes: explore, plan, review; 'off' leaves the mode)") != std::string::npos);
}
