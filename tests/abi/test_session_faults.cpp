// Misbehaving modules mounted in real sessions: load failures are visible and non-fatal,
// protocol violations are logged and ignored, failures come back as typed errors, and the
// process and the session keep running.
#include "session_harness.hpp"

#include <boost/json/serialize.hpp>
#include "text_checks.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <thread>

using namespace amp_test;
namespace json = boost::json;

namespace {

// loop-basic and context-simple with one provider `provider_yaml` (a YAML list item body).
std::string plan_with_provider(std::string_view provider_yaml, std::string_view tools_yaml = "") {
  return R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - )" + std::string(provider_yaml) +
         "\n" + std::string(tools_yaml);
}

using amp_test::contains;

std::string error_kind(const amplifier::TurnResult &turn) {
  return turn.error.is_object() ? string_at(turn.error.as_object(), "kind") : std::string();
}

}  // namespace

TEST_CASE("modules that cannot be mounted are skipped, announced, and the session still runs") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
  - module: tool-c-echo
tools:
  - module: bad-init-fails
  - module: bad-abi-major
  - module: bad-no-entry
  - module: bad-entry-null
  - module: bad-id-mismatch
  - module: bad-null-table
  - module: tool-c-echo
)");
  EventLog events(session->hooks());
  session->initialize();

  struct Expected {
    std::string module;
    std::string_view reason;
  };
  const std::vector<Expected> expected = {
      {"tool-c-echo", "cannot be mounted as providers"},
      {"bad-init-fails", "the setting 'endpoint' is required but missing"},
      {"bad-abi-major", "ABI 99"},
      {"bad-no-entry", "no entry symbol"},
      {"bad-entry-null", "NULL"},
      {"bad-id-mismatch", "tool-someone-else"},
      {"bad-null-table", "table"},
  };
  const auto &failures = session->load_failures();
  CHECK(failures.size() == expected.size());
  auto announced = events.payloads("module:load_failed");
  CHECK(announced.size() == expected.size());
  for (const auto &e : expected) {
    CAPTURE(e.module);
    auto failure = std::find_if(failures.begin(), failures.end(),
                                [&](const amplifier::LoadFailure &f) { return f.module == e.module; });
    REQUIRE(failure != failures.end());
    CHECK(contains(failure->error, e.reason));
    auto event = std::find_if(announced.begin(), announced.end(), [&](const json::object &p) {
      return string_at(p, "module") == e.module;
    });
    REQUIRE(event != announced.end());
    CHECK(contains(string_at(*event, "error"), e.reason));
    CHECK(event->at("fatal") == false);
  }

  // What did mount works: the mock calls the C tool and answers.
  amplifier::TurnResult turn = session->execute("still alive?");
  CHECK(turn.status == "success");
  CHECK(events.count("tool:post") == 1);
}

TEST_CASE("a required module that cannot be mounted stops the session, named and announced") {
  for (std::string_view mount_point : {"providers", "tools", "hooks"}) {
    CAPTURE(mount_point);
    // bad-init-fails refuses to be created; tool-c-echo is no provider and no hook.
    const std::string_view module = mount_point == "tools" ? "bad-init-fails" : "tool-c-echo";
    auto session = make_session(std::string(R"(
session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-mock
)") + std::string(mount_point == "providers" ? "" : std::string(mount_point) + ":\n") +
                                "  - {module: " + std::string(module) + ", required: true}\n");
    EventLog events(session->hooks());
    const std::string expected = std::string(module) + "' (required)";
    CHECK_THROWS_WITH_AS(session->initialize(), doctest::Contains(expected.c_str()),
                         amplifier::SessionError);
    auto announced = events.payloads("module:load_failed");
    REQUIRE(announced.size() == 1);
    CHECK(string_at(announced[0], "module") == module);
    CHECK(announced[0].at("fatal") == true);
    CHECK_THROWS_AS(session->execute("hi"), amplifier::SessionError);
  }
}

TEST_CASE("an orchestrator that cannot be loaded is fatal, named, and announced") {
  auto session = make_session(R"(
session:
  orchestrator: no-such-orchestrator
  context: context-simple
)");
  EventLog events(session->hooks());
  CHECK_THROWS_WITH_AS(session->initialize(), doctest::Contains("no-such-orchestrator"),
                       amplifier::SessionError);
  auto announced = events.payloads("module:load_failed");
  REQUIRE(announced.size() == 1);
  CHECK(string_at(announced[0], "module") == "no-such-orchestrator");
  CHECK(announced[0].at("fatal") == true);
}

TEST_CASE("a provider whose complete throws gives a typed error; the session carries on") {
  auto session = make_session(plan_with_provider("module: bad-throws"));
  EventLog events(session->hooks());
  session->initialize();
  for (int attempt = 1; attempt <= 2; ++attempt) {
    CAPTURE(attempt);
    amplifier::TurnResult turn = session->execute("explode");
    CHECK(turn.status == "error");
    CHECK(error_kind(turn) == "internal");
    CHECK(contains(turn.response, "the provider exploded"));
  }
  auto errors = events.payloads("provider:error");
  REQUIRE(errors.size() == 2);
  CHECK(string_at(errors[0], "provider") == "bad-throws");
  CHECK(events.count("execution:end") == 2);
}

TEST_CASE("a tool whose execute throws becomes an error result the model reads") {
  auto session = make_session(plan_with_provider(R"(module: provider-mock
    config:
      responses:
        - tool_calls:
            - {id: boom, name: explode, input: {}}
        - text: "recovered")",
                                                 "tools:\n  - module: bad-throws-tool\n"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("try the tool");
  CHECK(turn.status == "success");
  CHECK(turn.response == "recovered");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output_is_error(results[0]));
  CHECK(contains(json::serialize(tool_output(results[0])), "the tool exploded"));
  auto errors = events.payloads("tool:error");
  REQUIRE(errors.size() == 1);
  CHECK(string_at(errors[0], "tool_name") == "explode");
  CHECK(transcript_problems(messages).empty());
}

TEST_CASE("invalid JSON from a provider is a logged protocol violation and a typed error") {
  struct Case {
    std::string mode;
    std::string_view error_kind;
    std::string_view message_part;
    std::string_view log_part;  // empty: the fault is not a protocol violation
  };
  const std::vector<Case> cases = {
      {"finish", "stream", "not valid JSON", "invalid JSON in the result"},
      {"event", "stream", "stream event that is not valid JSON", "invalid JSON in a stream event"},
      {"wrong-shape", "stream", "invalid response", ""},
      {"error", "internal", "provider fell over", ""},
  };
  for (const auto &c : cases) {
    CAPTURE(c.mode);
    LogCapture log;
    auto session = make_session(plan_with_provider("module: bad-invalid-json\n    config: {mode: " +
                                                   c.mode + "}"));
    session->initialize();
    amplifier::TurnResult turn = session->execute("parse this");
    CAPTURE(turn.response);
    CHECK(turn.status == "error");
    CHECK(error_kind(turn) == c.error_kind);
    CHECK(contains(turn.response, c.message_part));
    if (!c.log_part.empty()) CHECK(log.count({"protocol violation", "bad-invalid-json", c.log_part}) == 1);
    // The transcript is left closed and valid for the next turn.
    json::array messages = transcript(*session);
    CHECK(roles(messages) == std::vector<std::string>{"user", "assistant"});
  }
}

TEST_CASE("a second terminal event is ignored and logged; the first one counts") {
  LogCapture log;
  auto session = make_session(plan_with_provider("module: bad-double-finish"));
  session->initialize();
  amplifier::TurnResult turn = session->execute("finish twice");
  CHECK(turn.status == "success");
  CHECK(turn.response == "first finish");
  // Logged as a second terminal event, or, once the kernel has forgotten the finished call,
  // as a terminal event for an unknown call: either way exactly once.
  CHECK(log.count({"protocol violation", "bad-double-finish", "terminal event"}) == 1);
}

TEST_CASE("reports after the terminal event, from the module's own thread, are logged and ignored") {
  LogCapture log;
  auto session = make_session(plan_with_provider("module: bad-late-callback"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult first = session->execute("one");
  CHECK(first.status == "success");
  CHECK(first.response == "finished on time");
  // The late stream event and the late finish, each recognised as stale.
  CHECK(log.wait_for({"protocol violation", "bad-late-callback", "already finished"}, 2, kPatience));
  CHECK(events.count("content_block:delta") == 0);  // the late event never reached observers

  amplifier::TurnResult second = session->execute("two");
  CHECK(second.status == "success");
  CHECK(second.response == "finished on time");
  json::array messages = transcript(*session);
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant", "user", "assistant"});
}

TEST_CASE("an orchestrator that ignores an immediate cancel is given up on, bounded, and said so") {
  // Its execute sleeps 30 s whatever happens. The session abandons the turn 10 s after the
  // immediate cancel and waits a bounded while for execute to return, so execute() returns
  // well before the orchestrator does, with a typed error, and the log says so.
  auto session = make_session(R"(
session:
  orchestrator: {module: bad-orchestrator-deaf, config: {hold_ms: 30000}}
  context: context-simple
providers:
  - module: provider-mock
)");
  session->initialize();
  LogCapture log;
  const auto started = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    session->cancel(amplifier::CancelLevel::Immediate);
  });
  const amplifier::TurnResult turn = session->execute("hello");
  const auto took = std::chrono::steady_clock::now() - started;
  canceller.join();
  CHECK(took < 25s);
  CHECK(turn.status == "cancelled");
  CHECK(error_kind(turn) == "cancelled");
  CHECK(log.count({"bad-orchestrator-deaf", "still running"}) == 1);
  // The orchestrator returns in the end; the session is torn down after it did.
  std::this_thread::sleep_until(started + 31s);
}
