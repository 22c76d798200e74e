// `isolation: process`: modules that segfault, abort, hang or allocate without bound, each in
// a process of its own, in real sessions. Each is survived (typed errors, module:crashed),
// restarted on its next call, and the rest of the session completes.
#include "amplifier/coordinator.hpp"
#include "session_harness.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

using namespace amp_test;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// A fresh folder for marker files.
struct Scratch {
  fs::path dir;
  Scratch() {
    char pattern[] = "/tmp/amp-isolation-XXXXXX";
    dir = ::mkdtemp(pattern);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::string path(std::string_view name) const { return (dir / name).string(); }
};

// An AddressSanitizer build: the module host reserves terabytes of address space for ASan's
// shadow memory at start-up, so it cannot start under an RLIMIT_AS of a few hundred MB, and
// ASan's allocator reports running out instead of returning null. A memory limit is checked in
// the normal build only.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

std::string error_kind(const amplifier::TurnResult &turn) {
  return turn.error.is_object() ? string_at(turn.error.as_object(), "kind") : std::string();
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// A turn's tool result text (the transcript's last tool message), serialised.
std::string last_tool_output(amplifier::Session &session) {
  auto tools = tool_messages(transcript(session));
  return tools.empty() ? std::string() : json::serialize(tool_output(tools.back()));
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0; }

}  // namespace

TEST_CASE("a whole session in module processes runs as it does in process") {
  const std::string plan = R"(
session:
  orchestrator: loop-basic
  context: context-simple
  isolation: ISOLATION
providers:
  - module: provider-mock
    config:
      responses:
        - thinking: "I should shout."
          tool_calls: [{id: call_1, name: c_upper, input: {text: hi}}]
        - text: "It said HI."
tools:
  - module: tool-c-echo
)";
  auto run = [&](std::string isolation) {
    std::string yaml = plan;
    yaml.replace(yaml.find("ISOLATION"), 9, isolation);
    auto session = make_session(yaml);
    EventLog events(session->hooks());
    session->initialize();
    auto turn = session->execute("echo hi");
    CHECK(turn.status == "success");
    CHECK(events.count("module:crashed") == 0);
    // The answers' stored ledger names its session: the same text once the id is set aside.
    std::string stored = json::serialize(transcript(*session));
    for (auto at = stored.find(session->id()); at != std::string::npos; at = stored.find(session->id()))
      stored.replace(at, session->id().size(), "<session>");
    return std::make_pair(turn.response, stored);
  };
  auto in_process = run("in_process");
  auto isolated = run("process");
  CHECK(isolated.first == "It said HI.");
  CHECK(contains(isolated.second, R"("output":"HI")"));
  CHECK(isolated == in_process);
}

TEST_CASE("a provider that segfaults mid-stream fails its call, and its restart answers") {
  Scratch s;
  auto session = make_session(R"(
session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - module: crash-provider
    isolation: process
    config: {crash_marker: ")" +
                              s.path("crashed") + R"("}
)");
  EventLog events(session->hooks());
  session->initialize();

  auto first = session->execute("hello");
  CHECK(first.status == "error");
  CHECK(error_kind(first) == "module_crashed");
  CHECK(contains(json::serialize(first.error), "SIGSEGV"));
  REQUIRE(events.wait_for("module:crashed", kPatience));
  auto crash = events.payloads("module:crashed").front();
  CHECK(crash.at("module") == "crash-provider");
  CHECK(crash.at("signal") == SIGSEGV);
  CHECK(crash.at("will_restart") == true);
  CHECK(crash.at("calls_failed") == 1);
  CHECK(events.count("content_block:delta") >= 1);  // it was streaming when it died

  auto second = session->execute("again");
  CHECK(second.status == "success");
  CHECK(second.response == "recovered: 1");  // a new process: its first call
  CHECK(events.count("module:restarted") == 1);
  CHECK(transcript_problems(transcript(*session)).empty());
}

TEST_CASE(
    "a tool that aborts ends with an error result the model reads; the next call restarts it") {
  Scratch s;
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: abort, input: {}}]
        - text: "The tool crashed."
        - tool_calls: [{id: call_2, name: echo, input: {n: 2}}]
        - text: "Echoed."
tools:
  - module: crash-tool
    isolation: process
    config: {marker: ")" + s.path("aborted") +
                              R"("}
)");
  EventLog events(session->hooks());
  session->initialize();

  auto first = session->execute("abort please");
  CHECK(first.status == "success");
  CHECK(first.response == "The tool crashed.");
  std::string output = last_tool_output(*session);
  CHECK(contains(output, "module 'crash-tool' crashed (killed by signal 6 (SIGABRT))"));
  REQUIRE(events.count("module:crashed") == 1);
  CHECK(events.payloads("module:crashed").front().at("signal") == SIGABRT);

  auto second = session->execute("echo please");
  CHECK(second.response == "Echoed.");
  output = last_tool_output(*session);
  CHECK(contains(output, R"("echo":{"n":2})"));
  CHECK_FALSE(contains(output, std::to_string(::getpid())));  // it ran in another process
  CHECK(transcript_problems(transcript(*session)).empty());
}

TEST_CASE("a tool that allocates without bound dies at its memory limit, not the host") {
  if (kAddressSanitizer) {
    MESSAGE("skipped under AddressSanitizer: RLIMIT_AS and its shadow memory exclude each other");
    return;
  }
  Scratch s;
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: leak, input: {}}]
        - text: "It ran out."
        - tool_calls: [{id: call_2, name: echo, input: {}}]
        - text: "Back."
tools:
  - module: crash-tool
    isolation: process
    memory_limit_mb: 256
    config: {marker: ")" + s.path("leaked") +
                              R"("}
)");
  EventLog events(session->hooks());
  session->initialize();
  CHECK(session->execute("leak").response == "It ran out.");
  CHECK(contains(last_tool_output(*session), "module 'crash-tool' crashed (killed by signal"));
  REQUIRE(events.count("module:crashed") == 1);
  CHECK(session->execute("echo").response == "Back.");
}

TEST_CASE("a module that announces a frame over max_message_mb is cut off at the header") {
  // Before the cap was checked against a plan's limit, the host waited for (and would have
  // buffered) the announced 100 MiB, and the call ran into its timeout instead.
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: forge, input: {}}]
        - text: "It was cut off."
        - tool_calls: [{id: call_2, name: echo, input: {}}]
        - text: "Back."
tools:
  - module: crash-tool
    isolation: process
    timeout: 20
)");
  EventLog events(session->hooks());
  session->initialize();
  const auto started = std::chrono::steady_clock::now();
  CHECK(session->execute("forge").response == "It was cut off.");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
  const auto output = last_tool_output(*session);
  CHECK(contains(output, "over the limit of 64 MiB"));
  CHECK_FALSE(contains(output, "took longer than"));
  CHECK(events.count("module:crashed") == 1);
  CHECK(session->execute("echo").response == "Back.");
}

TEST_CASE("an answer larger than max_message_mb fails its call, and the module goes on") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: big, input: {bytes: 2000000}}]
        - text: "Too big."
        - tool_calls: [{id: call_2, name: big, input: {bytes: 1000}}]
        - text: "Small."
tools:
  - module: crash-tool
    isolation: process
    max_message_mb: 1
)");
  EventLog events(session->hooks());
  session->initialize();
  CHECK(session->execute("big").response == "Too big.");
  CHECK(contains(last_tool_output(*session), "larger than the 1 MiB a module process accepts"));
  CHECK(session->execute("small").response == "Small.");
  CHECK(contains(last_tool_output(*session), std::string(1000, 'x')));
  CHECK(events.count("module:crashed") == 0);
}

TEST_CASE("a hook that hangs past its timeout is killed and skipped; the turn completes") {
  Scratch s;
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: echo, input: {text: one}}]
        - text: "First done."
        - tool_calls: [{id: call_2, name: echo, input: {text: two}}]
        - text: "Second done."
tools:
  - module: crash-tool
    isolation: process
hooks:
  - module: crash-hook
    isolation: process
    timeout: 0.5
    config: {event: "tool:pre", fault: hang, marker: ")" +
                              s.path("hung") + R"("}
)");
  EventLog events(session->hooks());
  LogCapture logs;
  session->initialize();

  auto first = session->execute("one");
  CHECK(first.response == "First done.");
  CHECK(contains(last_tool_output(*session), R"("echo":{"text":"one"})"));  // the hook was skipped
  REQUIRE(events.wait_for("module:crashed", kPatience));
  auto crash = events.payloads("module:crashed").front();
  CHECK(contains(string_at(crash, "reason"), "took longer than 500 ms"));
  CHECK(crash.at("signal") == SIGKILL);
  // Its stderr is logged under its name.
  REQUIRE(logs.wait_for({"crash-hook: hello from pid"}, 1, kPatience));
  for (const auto &line : logs.lines())
    if (contains(line.message, "hello from pid"))
      CHECK(line.component.starts_with("crash-hook [pid "));

  auto second = session->execute("two");
  CHECK(second.response == "Second done.");
  CHECK(events.count("module:restarted") == 1);
  CHECK(events.count("module:crashed") == 1);
}

TEST_CASE("a required hook that cannot answer denies: the action does not happen") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: echo, input: {text: secret}}]
        - text: "Done."
tools:
  - module: crash-tool
    isolation: process
hooks:
  - module: crash-hook
    isolation: process
    required: true
    config: {event: "tool:pre", fault: segfault}
)");
  EventLog events(session->hooks());
  session->initialize();
  auto turn = session->execute("go");
  CHECK(turn.response == "Done.");
  std::string output = last_tool_output(*session);
  CHECK(contains(output, "required hook unavailable"));
  CHECK(events.count("tool:post") == 0);  // denied, so it never ran
  CHECK(events.wait_for("module:crashed", kPatience));
}

TEST_CASE("a module that keeps crashing stays down after its restarts, with a clear error") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: crash-provider
    isolation: process
    restarts_per_minute: 1
)");
  EventLog events(session->hooks());
  session->initialize();
  CHECK(error_kind(session->execute("1")) == "module_crashed");  // the first process
  CHECK(error_kind(session->execute("2")) == "module_crashed");  // its one restart
  auto third = session->execute("3");
  CHECK(error_kind(third) == "module_crashed");
  CHECK(contains(third.response, "stays down"));
  CHECK(events.count("module:restarted") == 1);
  CHECK(events.count("module:crashed") == 2);
}

TEST_CASE("a module that cannot load in its process fails to mount with the loader's reason") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
  isolation: process
providers:
  - module: provider-mock
tools:
  - module: bad-abi-major
  - module: bad-init-fails
)");
  session->initialize();
  const auto &failures = session->load_failures();
  REQUIRE(failures.size() == 2);
  CHECK(contains(failures[0].error, "ABI 99"));
  CHECK(contains(failures[1].error, "the setting 'endpoint' is required but missing"));
  CHECK(session->execute("hi").status == "success");
}

TEST_CASE("an in-process call past its timeout ends with a timeout error") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: bad-ignores-cancel
    timeout: 0.02
)");
  session->initialize();
  auto turn = session->execute("hi");  // the provider answers after 50 ms: too late
  CHECK(turn.status == "error");
  CHECK(error_kind(turn) == "timeout");
  CHECK(contains(turn.response, "within its timeout of 20 ms"));
}

TEST_CASE("module processes end with the session") {
  Scratch s;
  const std::string pid_file = s.path("pid");
  {
    auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
hooks:
  - module: crash-hook
    isolation: process
    config: {event: "never:happens", pid_file: ")" +
                                pid_file + R"("}
)");
    session->initialize();
    CHECK(session->execute("hi").status == "success");
  }
  std::ifstream in(pid_file);
  pid_t pid = 0;
  in >> pid;
  REQUIRE(pid > 0);
  CHECK(pid != ::getpid());
  CHECK_FALSE(process_alive(pid));
}

TEST_CASE("cancelling a turn reaches an orchestrator and a provider in their own processes") {
  auto session = make_session(R"(
session:
  orchestrator: loop-streaming
  context: context-simple
  isolation: process
providers:
  - module: provider-mock
    config:
      responses:
        - {text: "This answer takes a long time to begin.", delay_ms: 20000}
)");
  EventLog events(session->hooks());
  session->initialize();
  std::thread canceller([&] {
    events.wait_for("provider:request", kPatience);
    session->cancel(amplifier::CancelLevel::Immediate);
  });
  const auto start = std::chrono::steady_clock::now();
  auto turn = session->execute("wait");
  canceller.join();
  CHECK(turn.status == "cancelled");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(events.count("module:crashed") == 0);
  CHECK(session->execute("again").status == "success");  // and the session goes on
}

TEST_CASE("an isolated module gets every host function by name, and can change its tools") {
  // Turn one asks which functions get_proc answers (every one abi.json describes) and adds a
  // tool through tools_changed; turn two calls the added tool. The same in the host's process
  // and behind isolation: process.
  const std::string plan = R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: host_procs, input: {}}, {id: call_2, name: add_tool, input: {}}]
        - text: "asked"
        - tool_calls: [{id: call_3, name: grown, input: {}}]
        - text: "grown"
tools:
  - {module: tool-test-host-api, isolation: ISOLATION}
)";
  auto run = [&](const std::string &isolation) {
    std::string yaml = plan;
    yaml.replace(yaml.find("ISOLATION"), 9, isolation);
    auto session = make_session(yaml);
    session->initialize();
    CHECK(session->execute("ask").status == "success");
    auto tools = tool_messages(transcript(*session));
    REQUIRE(tools.size() == 2);
    const std::string procs = json::serialize(tool_output(tools[0]));
    CHECK(json::serialize(tool_output(tools[1])) == R"("tools_changed: 0")");
    CHECK(session->execute("grow").status == "success");
    tools = tool_messages(transcript(*session));
    REQUIRE(tools.size() == 3);
    CHECK(!tool_output_is_error(tools[2]));
    CHECK(json::serialize(tool_output(tools[2])) == R"("grown")");
    return procs;
  };
  const std::string in_process = run("in_process");
  const std::string isolated = run("process");
  INFO(isolated);
  CHECK(isolated == in_process);
  CHECK(isolated.find("false") == std::string::npos);
  CHECK(isolated.find(R"("session_spawn":true)") != std::string::npos);
  CHECK(isolated.find(R"("tools_changed":true)") != std::string::npos);
}

// ABI 1.5's typed delta hook (hook_register_delta), through hooks-test-deltas, which writes
// down each delta it is given: the same lines in process and behind `isolation: process`.
TEST_CASE("a typed delta hook gets every delta typed, a modified one too, and the rest as JSON") {
  struct Variant {
    bool rewrite;
    bool json_fallback;
    std::vector<std::string> expected;
  };
  const std::vector<Variant> variants = {
      {false, true,
       {"registered 0", "typed 3 1 h\xc3\xa9llo \"q\"", "typed 1 4 {\"a\":", "typed 2 2 hm",
        "json reasoning", "typed 5 1 bye"}},
      // An earlier hook modified each text delta: the typed hook gets the modified text.
      {true, true,
       {"registered 0", "typed 3 1 REWRITTEN:h\xc3\xa9llo \"q\"", "typed 1 4 {\"a\":",
        "typed 2 2 hm", "json reasoning", "typed 5 1 REWRITTEN:bye"}},
      // No JSON handler: the reasoning delta is not given to the module at all.
      {false, false,
       {"registered 0", "typed 3 1 h\xc3\xa9llo \"q\"", "typed 1 4 {\"a\":", "typed 2 2 hm",
        "typed 5 1 bye"}},
  };
  for (const std::string isolation : {"in_process", "process"}) {
    for (const Variant &variant : variants) {
      CAPTURE(isolation);
      CAPTURE(variant.rewrite);
      CAPTURE(variant.json_fallback);
      Scratch scratch;
      const std::string record = scratch.path("deltas.txt");
      auto session = make_session(
          "session: {orchestrator: loop-basic, context: context-simple}\n"
          "hooks:\n"
          "  - module: hooks-test-deltas\n"
          "    isolation: " + isolation + "\n" +
          "    config: {record: '" + record + "', rewrite: " + (variant.rewrite ? "true" : "false") +
          ", json_fallback: " + (variant.json_fallback ? "true" : "false") + "}\n");
      session->initialize();
      REQUIRE(session->load_failures().empty());
      auto &hooks = session->hooks();
      hooks.emit_content_delta(3, AMP_DELTA_TEXT, "h\xc3\xa9llo \"q\"");
      hooks.emit_content_delta(1, AMP_DELTA_TOOL_INPUT, "{\"a\":");
      // JSON payloads of a typed delta's shape (a 1.1 module's), and a reasoning delta.
      hooks.notify("content_block:delta",
                   json::object{{"block_index", 2},
                                {"delta", json::object{{"type", "thinking"}, {"thinking", "hm"}}}});
      hooks.notify("content_block:delta",
                   json::object{{"block_index", 4},
                                {"delta", json::object{{"type", "reasoning"},
                                                       {"summary", json::array{}}}}});
      hooks.notify("content_block:delta",
                   json::object{{"block_index", 5},
                                {"delta", json::object{{"type", "text"}, {"text", "bye"}}}});
      std::ifstream in(record);
      std::vector<std::string> lines;
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      CHECK(lines == variant.expected);
    }
  }
}
