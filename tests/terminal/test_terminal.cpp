// Terminal tests: `amplifier chat` in a real TTY (a tmux pane), typed into with send-keys and
// read with capture-pane. NO_COLOR and CI are unset, so the terminal paths run (the approval
// prompt on /dev/tty, libedit, the display).
#include "process.hpp"
#include "temp_files.hpp"
#include "tmux_pane.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using amp_test::TmuxPane;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Long enough for a loaded machine; a test waits this long only when it is failing.
constexpr auto kPatience = 20s;
constexpr const char *kPrompt = "amplifier> ";

// A scratch directory with its own HOME and AMPLIFIER_HOME, removed at the end.
struct Scratch : amp_test::TempDir {
  const fs::path dir = path();
  Scratch() : amp_test::TempDir("amp-terminal-test") { fs::create_directories(dir / "home"); }
  fs::path write(const std::string &name, const std::string &text) const {
    fs::path p = dir / name;
    amp_test::write_file(p, text);
    return p;
  }
  // `amplifier chat --plan <plan>` with the test modules on the search path.
  std::string chat_command(const fs::path &plan) const {
    return "env -u NO_COLOR -u CI HOME='" + (dir / "home").string() + "' AMPLIFIER_HOME='" +
           (dir / "amphome").string() + "' AMPLIFIER_MODULE_PATH='" AMP_TEST_MODULE_DIR ":" AMP_MODULE_DIR
           "' '" AMP_BINARY_DIR "/host/amplifier' chat --plan '" + plan.string() + "'";
  }
};

bool module_built(const std::string &id) {
  return fs::exists(fs::path(AMP_MODULE_DIR) / (id + ".so"));
}

std::string plan(const std::string &mock_config, const std::string &extra_hooks = "",
                 const std::string &tools = "  - module: tool-c-echo\n") {
  return "session:\n  orchestrator: loop-streaming\n  context: context-simple\n"
         "providers:\n  - module: provider-mock\n    config:\n" + mock_config +
         "tools:\n" + tools + (extra_hooks.empty() ? "" : "hooks:\n" + extra_hooks);
}

std::string read_file(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls `p` until it contains `text` (true) or `timeout` passes (false). Used to know that
// the program went through its shutdown: a pane's death shows only once tmux has reaped the
// process, which on a loaded machine can lag far behind.
bool wait_for_file(const fs::path &p, const std::string &text, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (read_file(p).find(text) != std::string::npos) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
}

// Waits for the chat's `nth` prompt, then types `text` and presses Enter. Typing only once
// the prompt is up matters: libedit flushes input typed ahead while it sets up the line.
void submit_at(const TmuxPane &pane, int nth, const std::string &text) {
  REQUIRE_MESSAGE(pane.wait_for(kPrompt, kPatience, nth), pane.screen());
  pane.type(text);
  pane.key("Enter");
}

}  // namespace

TEST_CASE("the display shows the answer as it streams; thinking and the tool line with hooks-streaming-ui") {
  Scratch s;
  const bool ui = module_built("hooks-streaming-ui");
  auto p = s.write("plan.yaml", plan(R"(      chunk_size: 5
      responses:
        - thinking: "Pondering which tool fits."
          signature: "sig-1"
          tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "The tool answered ABC, all done."
)", ui ? "  - module: hooks-streaming-ui\n" : ""));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "show me");
  CHECK_MESSAGE(pane.wait_for("The tool answered ABC, all done.", kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for(kPrompt, kPatience, 2), pane.screen());
  if (ui) {
    std::string screen = pane.screen();
    CHECK_MESSAGE(screen.find("Pondering which tool fits.") != std::string::npos, screen);
    CHECK_MESSAGE(screen.find("c_upper") != std::string::npos, screen);
  } else {
    MESSAGE("hooks-streaming-ui is not built: the thinking and tool-line checks were skipped");
  }
}

TEST_CASE("Ctrl-C once during a slow response ends the turn gracefully and the next prompt works") {
  Scratch s;
  // 2 characters every 150 ms: the first response streams for about 2 s, then asks for a
  // tool, which a graceful cancel must keep from starting.
  auto p = s.write("plan.yaml", plan(R"(      chunk_size: 2
      delay_ms: 150
      responses:
        - text: "slowly streaming words here"
          tool_calls:
            - {id: call_1, name: c_upper, input: {text: "never"}}
        - text: "second answer"
)"));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "first");
  REQUIRE_MESSAGE(pane.wait_for("slo", kPatience), pane.screen());
  pane.key("C-c");
  CHECK_MESSAGE(pane.wait_for("cancelling after the running step", kPatience), pane.screen());
  // Graceful: the running provider call finishes (its whole text shows), no tool starts.
  CHECK_MESSAGE(pane.wait_for("the turn was cancelled", kPatience), pane.screen());
  // The cancel notice lands inside the text; what follows it streamed to the end.
  CHECK(pane.count("words here") == 1);
  submit_at(pane, 2, "again");
  CHECK_MESSAGE(pane.wait_for("second answer", kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for(kPrompt, kPatience, 3), pane.screen());
}

TEST_CASE("Ctrl-C twice during a slow response stops it at once and the next prompt works") {
  Scratch s;
  // About 6 s of streaming; an immediate cancel must end the turn long before.
  auto p = s.write("plan.yaml", plan(R"(      chunk_size: 2
      delay_ms: 150
      responses:
        - text: "a long answer that keeps streaming for quite a while: END-OF-LONG-ANSWER"
        - text: "next turn works"
)"));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "first");
  REQUIRE_MESSAGE(pane.wait_for("a l", kPatience), pane.screen());
  const auto interrupted = Clock::now();
  pane.key("C-c");
  pane.key("C-c");
  REQUIRE_MESSAGE(pane.wait_for("the turn was cancelled", kPatience), pane.screen());
  CHECK(Clock::now() - interrupted < 4s);  // well before the stream's natural end
  CHECK(pane.count("END-OF-LONG-ANSWER") == 0);
  submit_at(pane, 2, "again");
  CHECK_MESSAGE(pane.wait_for("next turn works", kPatience), pane.screen());
}

TEST_CASE("Ctrl-C at the prompt clears the line; /status, /tools, /clear and /exit work") {
  Scratch s;
  auto p = s.write("plan.yaml", plan("      responses: [{text: \"hi\"}]\n"));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  REQUIRE_MESSAGE(pane.wait_for(kPrompt, kPatience), pane.screen());
  pane.type("half typed");
  REQUIRE(pane.wait_for("half typed", kPatience));
  pane.key("C-c");
  submit_at(pane, 2, "/status");  // the cleared text must not come back as part of this line
  CHECK_MESSAGE(pane.wait_for("turns    0", kPatience), pane.screen());
  CHECK(pane.count("half typed/status") == 0);
  submit_at(pane, 3, "/tools");
  CHECK_MESSAGE(pane.wait_for("c_upper", kPatience), pane.screen());
  submit_at(pane, 4, "/clear");
  CHECK_MESSAGE(pane.wait_for("context cleared", kPatience), pane.screen());
  submit_at(pane, 5, "/exit");
  // The history is saved on the way out.
  CHECK_MESSAGE(wait_for_file(s.dir / "amphome" / "history", "/tools", kPatience), pane.screen());
}

TEST_CASE("/mode lists the modes, enters plan mode (shown in the prompt, the tool refused) and leaves it") {
  Scratch s;
  const fs::path log = s.dir / "events.jsonl";
  auto p = s.write("plan.yaml", plan(R"(      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "in plan mode"}}
        - text: "first turn over"
        - tool_calls:
            - {id: call_2, name: c_upper, input: {text: "after leaving"}}
)", "  - module: hooks-logging\n    config: {session_log_template: '" + log.string() + "'}\n"));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "/mode");
  CHECK_MESSAGE(pane.wait_for("mode: none", kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for("review", kPatience), pane.screen());
  submit_at(pane, 2, "/mode plan");
  CHECK_MESSAGE(pane.wait_for("mode plan: read-only", kPatience), pane.screen());
  REQUIRE_MESSAGE(pane.wait_for("amplifier [plan]> ", kPatience), pane.screen());
  pane.type("shout it");
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("first turn over", kPatience), pane.screen());
  REQUIRE_MESSAGE(pane.wait_for("amplifier [plan]> ", kPatience, 2), pane.screen());
  pane.type("/mode");
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("* plan", kPatience), pane.screen());
  REQUIRE_MESSAGE(pane.wait_for("amplifier [plan]> ", kPatience, 3), pane.screen());
  pane.type("/mode off");
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("no mode: every tool of the plan may run", kPatience), pane.screen());
  submit_at(pane, 3, "shout again");
  // Out of plan mode the tool runs: the mock's answer quotes its upper-cased output.
  CHECK_MESSAGE(pane.wait_for("AFTER LEAVING", kPatience), pane.screen());
  submit_at(pane, 4, "/exit");
  REQUIRE_MESSAGE(wait_for_file(log, "\"session:end\"", kPatience), read_file(log));
  const std::string events = read_file(log);
  CHECK(events.find("Tool 'c_upper' is not available in plan mode") != std::string::npos);
  CHECK(events.find("IN PLAN MODE") == std::string::npos);  // c_upper never ran in plan mode
  CHECK(events.find("\"mode:changed\"") != std::string::npos);
}

TEST_CASE("a line typed while a turn runs steers it: the model reads it at its next step") {
  Scratch s;
  auto p = s.write("plan.yaml", R"(session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - module: provider-mock
    config:
      chunk_size: 2
      delay_ms: 40
      responses:
        - text: "a long first answer that keeps streaming for a good while: FIRST-DONE"
)");
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "start");
  REQUIRE_MESSAGE(pane.wait_for("a long", kPatience), pane.screen());
  pane.type("STEER-NOTE");
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("the model reads that at its next step", kPatience), pane.screen());
  // The answer to the steered line follows the first one, in the same turn.
  CHECK_MESSAGE(pane.wait_for("Mock response to: STEER-NOTE", kPatience), pane.screen());
  submit_at(pane, 2, "/exit");
}

TEST_CASE("/rewind lists the turns, goes back to one with its files, says bash is not undone; the transcript follows") {
  Scratch s;
  fs::create_directories(s.dir / "work");
  const fs::path store = s.dir / "store";
  auto p = s.write("plan.yaml", "session:\n  orchestrator: loop-basic\n  context:\n"
                                "    module: context-persistent\n    config: {store_dir: '" + store.string() + "'}\n"
                                "providers:\n  - module: provider-mock\n    config:\n      responses:\n"
                                "        - tool_calls: [{name: write_file, input: {path: a.txt, content: v1}}]\n"
                                "        - text: TURN-ONE-DONE\n"
                                "        - tool_calls: [{name: edit_file, input: {path: a.txt, old_string: v1, new_string: v2}},"
                                " {name: write_file, input: {path: b.txt, content: b}}]\n"
                                "        - text: TURN-TWO-DONE\n"
                                "        - tool_calls: [{name: bash, input: {command: 'echo c > c.txt'}}]\n"
                                "        - text: TURN-THREE-DONE\n"
                                "tools:\n  - module: tool-filesystem\n    config: {working_dir: '" + (s.dir / "work").string() + "'}\n"
                                "  - module: tool-bash\n    config: {working_dir: '" + (s.dir / "work").string() + "'}\n");
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "first");
  REQUIRE_MESSAGE(pane.wait_for("TURN-ONE-DONE", kPatience), pane.screen());
  submit_at(pane, 2, "second");
  REQUIRE_MESSAGE(pane.wait_for("TURN-TWO-DONE", kPatience), pane.screen());
  submit_at(pane, 3, "third");
  REQUIRE_MESSAGE(pane.wait_for("TURN-THREE-DONE", kPatience), pane.screen());
  CHECK(read_file(s.dir / "work/a.txt") == "v2");
  CHECK(fs::exists(s.dir / "work/c.txt"));
  submit_at(pane, 4, "/rewind");
  CHECK_MESSAGE(pane.wait_for("2  second  [2 file(s) changed]", kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for("3  third  [ran bash]", kPatience), pane.screen());
  submit_at(pane, 5, "/rewind 9");
  CHECK_MESSAGE(pane.wait_for("turn 9 is not one of this session's: it has 3 turn(s)", kPatience), pane.screen());
  submit_at(pane, 6, "/rewind 1 all");
  CHECK_MESSAGE(pane.wait_for("the conversation is back at the end of turn 1 (2 later turn(s) forgotten)", kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for("removed " + (s.dir / "work/b.txt").string(), kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for("turn(s) 3 ran bash: what those commands changed is not undone", kPatience), pane.screen());
  CHECK(read_file(s.dir / "work/a.txt") == "v1");
  CHECK_FALSE(fs::exists(s.dir / "work/b.txt"));
  CHECK(fs::exists(s.dir / "work/c.txt"));  // bash's file stays, as it said
  submit_at(pane, 7, "after the rewind");
  // Its script done, the mock looks at the folder: b.txt is gone, bash's c.txt is there.
  CHECK_MESSAGE(pane.wait_for("Here is what list_directory returned", kPatience), pane.screen());
  CHECK(pane.count("> b.txt") == 0);
  submit_at(pane, 8, "/exit");
  // The stored conversation: turn 1, then the new turn; the forgotten turns are gone from it.
  fs::path transcript;
  const auto deadline = Clock::now() + kPatience;
  while (transcript.empty() && Clock::now() < deadline) {
    for (const auto &entry : fs::directory_iterator(store))
      if (fs::exists(entry.path() / "transcript.jsonl")) transcript = entry.path() / "transcript.jsonl";
    std::this_thread::sleep_for(50ms);
  }
  REQUIRE(wait_for_file(transcript, "list_directory returned", kPatience));
  const std::string stored = read_file(transcript);
  CHECK(stored.find("TURN-ONE-DONE") != std::string::npos);
  CHECK(stored.find("after the rewind") != std::string::npos);
  CHECK(stored.find("TURN-TWO-DONE") == std::string::npos);
  CHECK(stored.find("second") == std::string::npos);
}

TEST_CASE("/skill lists the skills and /skill NAME request sends the skill's instructions with the request") {
  Scratch s;
  s.write("home/.config/amplifier/skills/greet/SKILL.md",
          "---\nname: greet\ndescription: Greets people warmly.\n---\nSay GREETING-RULE first.\n");
  auto p = s.write("plan.yaml", "session:\n  orchestrator: loop-basic\n  context: context-simple\n"
                                "providers:\n  - module: provider-mock\n");
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "/skill");
  CHECK_MESSAGE(pane.wait_for("Greets people warmly.", kPatience), pane.screen());
  submit_at(pane, 2, "/skill nosuch");
  CHECK_MESSAGE(pane.wait_for("there is no skill 'nosuch'", kPatience), pane.screen());
  submit_at(pane, 3, "/skill greet say hi to Ada");
  // provider-mock answers "Mock response to: <the prompt>": the skill came first.
  CHECK_MESSAGE(pane.wait_for("Mock response to: <skill name=\"greet\"", kPatience), pane.screen());
  CHECK_MESSAGE(pane.wait_for("say hi to Ada", kPatience), pane.screen());
  submit_at(pane, 4, "/exit");
}

namespace {

// Runs one turn whose tool call `gate` (a hooks: entry) sends to the user, answers "d" on the
// terminal and checks that the tool never ran.
// `orchestrator_asks`: the gate answers ask_user and the orchestrator asks (approval:denied
// is then in the log); otherwise the hook asks the host itself.
void deny_on_the_terminal(const std::string &gate, bool orchestrator_asks) {
  Scratch s;
  const fs::path log = s.dir / "events.jsonl";
  auto p = s.write("plan.yaml", plan(R"(      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "secret-argument"}}
        - text: "finished after the tool"
)", gate + "  - module: hooks-logging\n    config: {session_log_template: '" + log.string() + "'}\n"));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "use the tool");
  REQUIRE_MESSAGE(pane.wait_for("[d]eny", kPatience), pane.screen());
  CHECK(pane.count("c_upper") >= 1);          // the tool
  CHECK(pane.count("secret-argument") >= 1);  // the argument preview
  pane.type("d");  // the approval prompt reads /dev/tty itself, without libedit
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("finished after the tool", kPatience), pane.screen());
  submit_at(pane, 2, "/exit");
  REQUIRE_MESSAGE(wait_for_file(log, "\"session:end\"", kPatience), read_file(log));
  std::string events = read_file(log);
  CHECK(events.find("\"tool:post\"") == std::string::npos);
  CHECK(events.find("SECRET-ARGUMENT") == std::string::npos);  // c_upper never ran
  if (orchestrator_asks) CHECK(events.find("\"approval:denied\"") != std::string::npos);
}

}  // namespace

TEST_CASE("an ask_user from tool:pre answered \"d\" (deny) on the terminal keeps the tool from running") {
  deny_on_the_terminal("  - module: hooks-test-ask\n    config: {tools: [c_upper], timeout_seconds: 60}\n",
                       /*orchestrator_asks=*/true);
}

TEST_CASE("hooks-approval's ask rule answered \"d\" (deny) on the terminal keeps the tool from running") {
  if (!module_built("hooks-approval")) {
    MESSAGE("hooks-approval is not built: its terminal approval check was skipped");
    return;
  }
  Scratch audit;
  deny_on_the_terminal("  - module: hooks-approval\n    config: {rules: [{tool: c_upper, action: ask}], "
                       "timeout_seconds: 60, audit_log: '" + (audit.dir / "audit.jsonl").string() + "'}\n",
                       /*orchestrator_asks=*/false);
}

TEST_CASE("without a terminal an approval request is denied: \"no terminal to ask\"") {
  Scratch s;
  const fs::path log = s.dir / "events.jsonl";
  auto p = s.write("plan.yaml", plan(R"(      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "secret-argument"}}
        - text: "finished after the tool"
)", "  - module: hooks-test-ask\n    config: {tools: [c_upper]}\n"
    "  - module: hooks-logging\n    config: {session_log_template: '" + log.string() + "'}\n"));
  amp_test::ProcessOptions o;
  o.working_dir = s.dir.string();
  o.env = {{"HOME", (s.dir / "home").string()}, {"AMPLIFIER_HOME", (s.dir / "amphome").string()},
           {"AMPLIFIER_MODULE_PATH", AMP_TEST_MODULE_DIR ":" AMP_MODULE_DIR}};
  o.unset_env = {"CI"};  // no terminal is reason enough
  auto r = amp_test::run_process({AMP_BINARY_DIR "/host/amplifier", "run", "--plan", p.string(), "go"}, o);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("finished after the tool") != std::string::npos);
  CHECK(r.err.find("[approval]") == std::string::npos);  // nobody was asked
  std::string events = read_file(log);
  CHECK(events.find("\"approval:denied\"") != std::string::npos);
  CHECK(events.find("no terminal to ask") != std::string::npos);
  CHECK(events.find("\"tool:post\"") == std::string::npos);
}

TEST_CASE("the approval prompt shows the model's whole command, its control characters visible") {
  if (!module_built("hooks-approval") || !module_built("tool-bash")) {
    MESSAGE("hooks-approval or tool-bash is not built: the approval prompt check was skipped");
    return;
  }
  Scratch s;
  const fs::path log = s.dir / "events.jsonl";
  // Raw, ESC[2K erases the prompt's line and \r returns to its start: the terminal would show
  // "harmless" where the real command is.
  auto p = s.write("plan.yaml", plan(R"(      responses:
        - tool_calls:
            - {id: call_1, name: bash, input: {command: "touch REAL-COMMAND-RAN\e[2K\r\e[1Aharmless"}}
        - text: "finished after the tool"
)", "  - module: hooks-approval\n    config: {rules: [{tool: bash, action: ask}], timeout_seconds: 60}\n"
    "  - module: hooks-logging\n    config: {session_log_template: '" + log.string() + "'}\n",
                                     "  - module: tool-bash\n"));
  TmuxPane pane(s.chat_command(p), s.dir.string());
  submit_at(pane, 1, "use the tool");
  REQUIRE_MESSAGE(pane.wait_for("[d]eny", kPatience), pane.screen());
  CHECK_MESSAGE(pane.count("touch REAL-COMMAND-RAN^[[2K^M^[[1Aharmless") >= 1, pane.screen());
  pane.type("d");
  pane.key("Enter");
  CHECK_MESSAGE(pane.wait_for("finished after the tool", kPatience), pane.screen());
  submit_at(pane, 2, "/exit");
  REQUIRE_MESSAGE(wait_for_file(log, "\"session:end\"", kPatience), read_file(log));
  CHECK_FALSE(fs::exists(s.dir / "REAL-COMMAND-RAN"));
}
