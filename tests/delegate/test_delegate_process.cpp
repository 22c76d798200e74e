// Delegation through the real binary: provider-mock scripted to call `delegate`, the child
// session's events in `run --format jsonl`, its answer as the tool result, parallel children,
// Ctrl-C reaching a child, resuming a child, nesting limits, and `amplifier agents`.
#include "host_process.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <sstream>

using amp_host_test::run_amplifier;
using amp_host_test::Scratch;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct Event {
  std::string name;
  json::object data;
  std::string session_id() const {
    auto *v = data.if_contains("session_id");
    return v && v->is_string() ? std::string(v->as_string()) : "";
  }
  std::string field(std::string_view key) const {
    auto *v = data.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : "";
  }
};

std::vector<Event> events_of(const std::string &jsonl) {
  std::vector<Event> out;
  for (const auto &line : amp_test::lines_of(jsonl)) {
    if (line.empty()) continue;
    json::value v = json::parse(line);
    out.push_back({std::string(v.at("event").as_string()), v.at("data").as_object()});
  }
  return out;
}

std::vector<Event> named(const std::vector<Event> &events, std::string_view name) {
  std::vector<Event> out;
  for (const auto &e : events)
    if (e.name == name) out.push_back(e);
  return out;
}

// Index of the first event named `name` of session `session` (or -1).
int index_of(const std::vector<Event> &events, std::string_view name, const std::string &session) {
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].name == name && events[i].session_id() == session) return int(i);
  return -1;
}

std::string tool_output(const Event &tool_post) {
  const auto &result = tool_post.data.at("result").as_object();
  const auto &output = result.at("output");
  return output.is_string() ? std::string(output.as_string()) : json::serialize(output);
}

std::string read_text(const fs::path &file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A plan whose provider runs `parent_script` (YAML flow list of responses) and whose agent
// `researcher` answers with `child_script`.
std::string plan(const std::string &parent_script, const std::string &child_script,
                 const std::string &delegate_config = "{}",
                 const std::string &context = "context-simple") {
  return R"(session:
  orchestrator: loop-streaming
  context: {module: )" +
         context + (context == "context-persistent" ? ", config: {store_dir: ./sessions}" : "") +
         R"(}
providers:
  - module: provider-mock
    config: {responses: )" +
         parent_script + R"(}
tools:
  - {module: tool-delegate, config: )" +
         delegate_config + R"(}
  - {module: tool-filesystem, config: {allowed_read_paths: ["."]}}
agents:
  researcher:
    description: Finds answers
    instructions: You research things.
    providers:
      - module: provider-mock
        config: {responses: )" +
         child_script + R"(}
)";
}

}  // namespace

TEST_CASE("a delegated child runs as its own session and its answer is the tool result") {
  Scratch s;
  auto file = s.write(
      "plan.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "Find the answer", context_depth: all}}]}, {text: "Parent done."}])",
          R"([{text: "Child answer: 42"}])", "{}", "context-persistent"));
  auto o = s.options();
  auto run = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "What is it?"}, o);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto events = events_of(run.out);

  const auto starts = named(events, "session:start");
  REQUIRE(starts.size() == 2);
  const std::string parent = starts[0].session_id();
  const auto forks = named(events, "session:fork");
  REQUIRE(forks.size() == 1);
  const std::string child = forks[0].session_id();
  CHECK(child != parent);
  CHECK(forks[0].field("parent_id") == parent);
  CHECK(forks[0].field("agent") == "researcher");
  CHECK(starts[1].session_id() == child);
  CHECK(starts[1].field("parent_id") == parent);

  const auto spawned = named(events, "delegate:agent_spawned");
  REQUIRE(spawned.size() == 1);
  CHECK(spawned[0].field("parent_session_id") == parent);
  CHECK(spawned[0].field("child_session_id") == child);
  const auto completed = named(events, "delegate:agent_completed");
  REQUIRE(completed.size() == 1);
  CHECK(completed[0].field("child_session_id") == child);
  CHECK(completed[0].field("status") == "success");

  // The child ended before its answer came back to the parent as the tool's result.
  const auto posts = named(events, "tool:post");
  REQUIRE(posts.size() == 1);
  CHECK(tool_output(posts[0]).find("Child answer: 42") != std::string::npos);
  CHECK(tool_output(posts[0]).find(child) != std::string::npos);
  CHECK(index_of(events, "session:end", child) < index_of(events, "tool:post", parent));
  CHECK(named(events, "prompt:complete").back().session_id() == parent);

  // Both are stored; the child's transcript starts with the agent's instructions, then the
  // parent's conversation (context_depth all), then its instruction.
  const std::string transcript = read_text(s.dir / "sessions" / child / "transcript.jsonl");
  const auto system_at = transcript.find("You research things.");
  const auto parent_prompt_at = transcript.find("What is it?");
  const auto instruction_at = transcript.find("Find the answer");
  CHECK(system_at != std::string::npos);
  CHECK(parent_prompt_at != std::string::npos);
  CHECK(instruction_at != std::string::npos);
  CHECK(system_at < parent_prompt_at);
  CHECK(parent_prompt_at < instruction_at);
  CHECK(transcript.find("delegating") == std::string::npos);
  CHECK(read_text(s.dir / "sessions" / child / "metadata.json").find(parent) != std::string::npos);
  CHECK(fs::exists(s.dir / "sessions" / parent / "transcript.jsonl"));
}

TEST_CASE("several delegate calls of one response run at the same time") {
  Scratch s;
  auto file = s.write(
      "plan.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "one"}}, {name: delegate, input: {agent: researcher, instruction: "two"}}, {name: delegate, input: {agent: self, instruction: "three"}}]}, {text: "All done."}])",
          R"([{text: "slow answer", delay_ms: 700}])"));
  auto o = s.options();
  auto run = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "go"}, o);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto events = events_of(run.out);
  const auto forks = named(events, "session:fork");
  REQUIRE(forks.size() == 3);
  // Both researchers (each answers after 700 ms) had started their turns before either ended.
  std::vector<std::string> researchers;
  for (const auto &fork : forks)
    if (fork.field("agent") == "researcher") researchers.push_back(fork.session_id());
  REQUIRE(researchers.size() == 2);
  int first_end = int(events.size());
  for (const auto &id : researchers)
    first_end = std::min(first_end, index_of(events, "session:end", id));
  for (const auto &id : researchers) CHECK(index_of(events, "prompt:submit", id) < first_end);
  CHECK(named(events, "delegate:agent_completed").size() == 3);
  // "self" ran the parent's own plan: its provider's script starts over, so it answered by
  // calling delegate itself, which the child's plan does not have (no nesting by default).
  const std::string parent = forks[0].field("parent_id");
  bool self_lacked_delegate = false;
  for (const auto &error : named(events, "tool:error"))
    if (error.session_id() != parent && error.field("tool_name") == "delegate" &&
        json::serialize(error.data.at("error")).find("tool_not_found") != std::string::npos)
      self_lacked_delegate = true;
  CHECK(self_lacked_delegate);
}

TEST_CASE("Ctrl-C reaches a running child, and the run ends cancelled") {
  Scratch s;
  auto file = s.write(
      "plan.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "take long"}}]}, {text: "never"}])",
          // A step that takes long (a tool call answered slowly), then one that must never run.
          R"([{tool_calls: [{name: no_such_tool, input: {}}], delay_ms: 1500}, {text: "more"}])"));
  auto o = s.options();
  o.signal_marker = "\"delegate:agent_spawned\"";
  o.signal_to_send = SIGINT;
  o.timeout = std::chrono::seconds(60);
  auto run = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "go"}, o);
  INFO(run.err);
  CHECK(run.exit_code == 130);
  CHECK(run.signal_to_exit < std::chrono::seconds(20));
  const auto events = events_of(run.out);
  const auto forks = named(events, "session:fork");
  REQUIRE(forks.size() == 1);
  const std::string child = forks[0].session_id();
  CHECK(index_of(events, "cancel:requested", child) >= 0);
  CHECK(index_of(events, "session:end", child) >= 0);
  const auto completed = named(events, "delegate:agent_completed");
  REQUIRE(completed.size() == 1);
  CHECK(completed[0].field("status") == "cancelled");
  CHECK(run.out.find("never") == std::string::npos);
  CHECK(run.out.find("more") == std::string::npos);
}

TEST_CASE("a delegate call with a session_id continues that child's conversation") {
  Scratch s;
  auto first_plan = s.write(
      "first.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "remember 7"}}]}, {text: "ok"}])",
          R"([{text: "noted"}, {text: "it was 7"}])", "{}", "context-persistent"));
  auto o = s.options();
  auto first = run_amplifier({"run", "--plan", first_plan.string(), "--format", "jsonl", "go"}, o);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const auto forks = named(events_of(first.out), "session:fork");
  REQUIRE(forks.size() == 1);
  const std::string child = forks[0].session_id();

  auto second_plan = s.write(
      "second.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "what was it?", session_id: ")" +
              child + R"("}}]}, {text: "ok"}])",
          R"([{text: "it was 7"}])", "{}", "context-persistent"));
  auto second =
      run_amplifier({"run", "--plan", second_plan.string(), "--format", "jsonl", "again"}, o);
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  const auto events = events_of(second.out);
  CHECK(named(events, "session:fork").empty());
  const auto resumed = named(events, "delegate:agent_resumed");
  REQUIRE(resumed.size() == 1);
  CHECK(resumed[0].field("child_session_id") == child);
  CHECK(index_of(events, "session:resume", child) >= 0);
  const std::string transcript = read_text(s.dir / "sessions" / child / "transcript.jsonl");
  CHECK(transcript.find("remember 7") < transcript.find("what was it?"));

  // An unknown child is an error the model reads, and the parent goes on.
  auto third_plan = s.write(
      "third.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "x", session_id: "no-such-session"}}]}, {text: "went on"}])",
          R"([{text: "?"}])", "{}", "context-persistent"));
  auto third = run_amplifier({"run", "--plan", third_plan.string(), "--format", "jsonl", "x"}, o);
  REQUIRE(third.exit_code == 0);
  const auto posts = named(events_of(third.out), "tool:post");
  REQUIRE(posts.size() == 1);
  CHECK(tool_output(posts[0]).find("did not find session 'no-such-session'") != std::string::npos);
}

TEST_CASE("an unknown agent and too deep a nesting are errors the model reads") {
  Scratch s;
  auto file = s.write(
      "plan.yaml",
      plan(
          R"([{tool_calls: [{name: delegate, input: {agent: nobody, instruction: "x"}}]}, {tool_calls: [{name: delegate, input: {agent: researcher, instruction: "nest"}}]}, {text: "fine"}])",
          R"([{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "deeper"}}]}, {text: "child done"}])",
          "{allow_nesting: true, max_depth: 1}"));
  auto o = s.options();
  auto run = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "go"}, o);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto events = events_of(run.out);
  const auto posts = named(events, "tool:post");
  REQUIRE(posts.size() == 3);
  CHECK(tool_output(posts[0]).find("no agent named 'nobody' (known: self, researcher)") !=
        std::string::npos);
  // The child has delegate (nesting allowed) but is at the depth limit.
  CHECK(tool_output(posts[1]).find("nested too deep") != std::string::npos);
  CHECK(tool_output(posts[2]).find("child done") != std::string::npos);
}

TEST_CASE("amplifier agents list and show") {
  Scratch s;
  s.write(".amplifier/agents/helper.md",
          "---\ndescription: Helps out\ninherit: {tools: none}\n---\nYou help.\n");
  auto file = s.write("plan.yaml", plan("[]", "[]"));
  auto o = s.options();
  // A project folder's agents count once the operator trusts the folder.
  auto before = run_amplifier({"agents", "list", "--plan", file.string()}, o);
  CHECK(before.out.find("helper") == std::string::npos);
  CHECK(before.err.find("the folder is not trusted") != std::string::npos);
  auto trust = run_amplifier({"trust"}, o);
  INFO(trust.err);
  REQUIRE(trust.exit_code == 0);
  CHECK(trust.out.find("trusted: ") != std::string::npos);
  auto list = run_amplifier({"agents", "list", "--plan", file.string()}, o);
  INFO(list.err);
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("helper") != std::string::npos);
  CHECK(list.out.find("Helps out") != std::string::npos);
  CHECK(list.out.find("researcher") != std::string::npos);
  CHECK(list.out.find("helper") < list.out.find("researcher"));  // the project's first

  auto json_list =
      run_amplifier({"agents", "list", "--plan", file.string(), "--format", "json"}, o);
  REQUIRE(json_list.exit_code == 0);
  CHECK(json::parse(json_list.out).as_array().size() == 2);

  auto show = run_amplifier({"agents", "show", "helper", "--plan", file.string()}, o);
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find("You help.") != std::string::npos);
  CHECK(show.out.find("inherits:     tools: none") != std::string::npos);
  CHECK(show.out.find("tool-filesystem") == std::string::npos);  // inherits no tools
  CHECK(show.out.find("orchestrator") != std::string::npos);

  auto missing = run_amplifier({"agents", "show", "nobody", "--plan", file.string()}, o);
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("no agent named 'nobody'") != std::string::npos);
}

TEST_CASE("at a terminal, a folder with a .amplifier/ is asked about once; a no is remembered") {
  // script(1) gives amplifier a terminal; what the test writes is the operator's answer.
  auto at_terminal = [](const Scratch &s, const fs::path &plan_file, const std::string &answer) {
    auto o = s.options();
    o.stdin_text = answer;
    const std::string command = "'" + amp_host_test::kAmplifier + "' run --plan '" +
                                plan_file.string() + "' --format jsonl go";
    return amp_test::run_process({"script", "-qec", command, "/dev/null"}, o);
  };
  const std::string question = "Trust this folder? [y/N]";
  {
    Scratch s;
    s.write(".amplifier/agents/helper.md", "---\ndescription: Helps out\n---\nYou help.\n");
    auto file = s.write("plan.yaml", plan("[{text: done}]", "[]"));
    auto yes = at_terminal(s, file, "y\n");
    INFO(yes.out);
    CHECK(yes.out.find(question) != std::string::npos);
    auto listed = run_amplifier({"trust", "--list"}, s.options());
    CHECK(listed.out.find(fs::canonical(s.dir).string()) != std::string::npos);
    CHECK(at_terminal(s, file, "").out.find(question) == std::string::npos);  // trusted now
  }
  {
    Scratch s;
    s.write(".amplifier/mcp.json", R"({"servers": {}})");
    auto file = s.write("plan.yaml", plan("[{text: done}]", "[]"));
    auto no = at_terminal(s, file, "n\n");
    INFO(no.out);
    CHECK(no.out.find(question) != std::string::npos);
    CHECK(no.out.find("not asked again") != std::string::npos);
    CHECK(run_amplifier({"trust", "--list"}, s.options()).out.find(fs::canonical(s.dir).string()) ==
          std::string::npos);
    CHECK(at_terminal(s, file, "").out.find(question) == std::string::npos);  // declined
    // Without a terminal nobody is asked: the folder stays untrusted.
    auto piped = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "go"},
                               s.options());
    CHECK(piped.err.find(question) == std::string::npos);
  }
}
