// loop-streaming in real sessions, scripted through provider-mock and provider-test-stamp.
#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>

using namespace amp_test;
namespace json = boost::json;
using amplifier::HookAction;
using amplifier::HookResult;
using Clock = std::chrono::steady_clock;

namespace {

std::string plan(std::string_view mock_config, std::string_view loop_config = "{}") {
  return R"(
session:
  orchestrator: {module: loop-streaming, config: )" +
         std::string(loop_config) + R"(}
  context: context-simple
providers:
  - module: provider-mock
    config: )" +
         std::string(mock_config) + R"(
tools:
  - module: tool-c-echo
  - module: tool-test-sync
)";
}

// When each named event reached a hook, by steady_clock, in arrival order.
class ArrivalTimes {
 public:
  void watch(amplifier::HookRegistry &hooks, const std::string &event) {
    hooks.register_handler(event, [this](std::string_view name, const json::object &) {
      std::lock_guard lock(mutex_);
      arrivals_.push_back({std::string(name), Clock::now()});
      return HookResult{};
    });
  }
  std::vector<Clock::time_point> of(std::string_view event) const {
    std::lock_guard lock(mutex_);
    std::vector<Clock::time_point> out;
    for (const auto &[name, when] : arrivals_)
      if (name == event) out.push_back(when);
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, Clock::time_point>> arrivals_;
};

std::string text_of(const json::value &v) {
  return v.is_string() ? std::string(v.get_string()) : json::serialize(v);
}

long long ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

}  // namespace

TEST_CASE("deltas reach the hooks while the provider is still streaming, not after the response") {
  // 40 characters in chunks of 4 with 40 ms between deltas: the stream lasts about 400 ms.
  auto session = make_session(plan(R"(
      chunk_size: 4
      delay_ms: 40
      responses:
        - text: "0123456789012345678901234567890123456789"
  )"));
  ArrivalTimes times;
  times.watch(session->hooks(), "content_block:delta");
  times.watch(session->hooks(), "provider:response");
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("stream please").status == "success");

  auto deltas = times.of("content_block:delta");
  auto responses = times.of("provider:response");
  REQUIRE(deltas.size() >= 10);
  REQUIRE(responses.size() == 1);
  // The first delta arrived long before the call ended: at least 5 more deltas' worth.
  CHECK(ms_between(deltas.front(), responses.front()) >= 5 * 40);
  // And the deltas came spread out, as sent, not in one burst at the end.
  CHECK(ms_between(deltas.front(), deltas.back()) >= 5 * 40);
  CHECK(events.index_of("content_block:delta") < events.index_of("provider:response"));
  auto complete = events.payloads("orchestrator:complete");
  REQUIRE(complete.size() == 1);
  CHECK(string_at(complete[0], "orchestrator") == "loop-streaming");
}

TEST_CASE("one response's tool calls run in parallel under one parallel_group_id, stored in call order") {
  // Each rendezvous returns only once all three are running; finish_after makes "first" end
  // after "second".
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: r1, name: rendezvous, input: {group: trio, count: 3, timeout_ms: 3000}}
            - {id: r2, name: rendezvous, input: {group: trio, count: 3, timeout_ms: 3000}}
            - {id: r3, name: rendezvous, input: {group: trio, count: 3, timeout_ms: 3000}}
        - tool_calls:
            - {id: first, name: finish_after, input: {text: first, after: second}}
            - {id: second, name: finish_after, input: {text: second}}
        - text: "done"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("go").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 5);
  for (int i = 0; i < 3; ++i) CHECK(text_of(tool_output(results[i])) == "all 3 calls of trio met");
  CHECK(string_at(results[3], "tool_call_id") == "first");
  CHECK(string_at(results[4], "tool_call_id") == "second");
  CHECK(transcript_problems(messages).empty());

  auto pres = events.payloads("tool:pre");
  REQUIRE(pres.size() == 5);
  CHECK_FALSE(string_at(pres[0], "parallel_group_id").empty());
  CHECK(pres[1].at("parallel_group_id") == pres[0].at("parallel_group_id"));
  CHECK(pres[2].at("parallel_group_id") == pres[0].at("parallel_group_id"));
  CHECK(pres[3].at("parallel_group_id") == pres[4].at("parallel_group_id"));
  CHECK(pres[3].at("parallel_group_id") != pres[0].at("parallel_group_id"));
  auto posts = events.payloads("tool:post");
  REQUIRE(posts.size() == 5);
  CHECK(string_at(posts[3], "tool_call_id") == "second");  // it really finished first
}

TEST_CASE("max_iterations reached: one final wrap-up call, without tools, with a reminder") {
  // The final call falls back on the mock's default, which echoes the last user message of
  // the request when no tools are offered: here, the reminder.
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
  )", "{max_iterations: 1}"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("keep going");
  CHECK(turn.status == "success");
  CHECK(turn.response.find("maximum number of iterations") != std::string::npos);
  auto requests = events.payloads("provider:request");
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].at("max_reached") == true);
  json::array messages = transcript(*session);
  INFO(dump(messages));
  // The mock's answer quotes the reminder; no message of the user's side holds it.
  for (const auto &m : messages)
    if (string_at(m.as_object(), "role") != "assistant")
      CHECK(json::serialize(m).find("orchestrator-loop-limit") == std::string::npos);
  CHECK(transcript_problems(messages).empty());
}

TEST_CASE("min_delay_between_calls_ms spaces provider calls, within a turn and across turns") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "first turn done"
        - text: "second turn done"
  )", "{min_delay_between_calls_ms: 300}"));
  // A call starts after its provider:request and before its first stream event, so from one
  // call's provider:request to the next call's first event at least the delay must pass.
  ArrivalTimes times;
  times.watch(session->hooks(), "provider:request");
  times.watch(session->hooks(), "content_block:start");
  session->initialize();
  REQUIRE(session->execute("one").status == "success");
  REQUIRE(session->execute("two").status == "success");
  auto requests = times.of("provider:request");
  auto starts = times.of("content_block:start");
  REQUIRE(requests.size() == 3);
  REQUIRE(starts.size() == 3);
  CHECK(ms_between(requests[0], starts[1]) >= 300);
  CHECK(ms_between(requests[1], starts[2]) >= 300);
}

TEST_CASE("a graceful cancel during the pacing delay starts no provider call") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "never sent"
  )", "{min_delay_between_calls_ms: 60000}"));
  EventLog events(session->hooks());
  session->initialize();
  auto turn = std::async(std::launch::async, [&] { return session->execute("go"); });
  REQUIRE(events.wait_for("provider:request", kPatience,
                          [](const json::object &d) { return d.at("iteration") == 2; }));
  session->cancel(amplifier::CancelLevel::Graceful);
  REQUIRE(turn.wait_for(kPatience) == std::future_status::ready);
  CHECK(turn.get().status == "cancelled");
  CHECK(events.count("provider:response") == 1);
}

TEST_CASE("extended_thinking and reasoning_effort reach the provider in the ChatRequest") {
  auto session = make_session(R"(
session:
  orchestrator:
    module: loop-streaming
    config: {extended_thinking: true, reasoning_effort: high}
  context: context-simple
providers:
  - module: provider-test-stamp
    config: {deltas: 0}
)");
  session->initialize();
  amplifier::TurnResult turn = session->execute("which options?");
  REQUIRE(turn.status == "success");
  CHECK(turn.response.find("extended_thinking=true") != std::string::npos);
  CHECK(turn.response.find("reasoning_effort=\"high\"") != std::string::npos);
}

TEST_CASE("an ephemeral injection reaches the next request only and is never stored") {
  auto session = make_session(R"(
session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - module: provider-mock
)");
  int requests = 0;
  session->hooks().register_handler("provider:request", [&](std::string_view, const json::object &) {
    HookResult r;
    if (++requests > 1) return r;  // only before the first request
    r.action = HookAction::InjectContext;
    r.context_injection = "Ephemeral whisper.";
    r.context_injection_role = "user";
    r.ephemeral = true;
    return r;
  });
  session->initialize();
  amplifier::TurnResult first = session->execute("hello");
  REQUIRE(first.status == "success");
  CHECK(first.response.find("Ephemeral whisper.") != std::string::npos);  // it was sent
  amplifier::TurnResult second = session->execute("again");
  REQUIRE(second.status == "success");
  CHECK(second.response.find("Ephemeral whisper.") == std::string::npos);  // not resent
  json::array messages = transcript(*session);
  INFO(dump(messages));
  // The first answer quotes it; no message of the user's side holds it.
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant", "user", "assistant"});
  for (const auto &m : messages)
    if (string_at(m.as_object(), "role") != "assistant")
      CHECK(json::serialize(m).find("Ephemeral whisper.") == std::string::npos);
}

TEST_CASE("loop-streaming asks for approval like loop-basic: a denied tool never runs") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "ok"
  )"));
  EventLog events(session->hooks());
  session->hooks().register_handler("tool:pre", [](std::string_view, const json::object &) {
    HookResult r;
    r.action = HookAction::AskUser;
    r.approval_prompt = "Run it?";
    return r;
  });
  session->coordinator().set_approval_handler([](const json::object &) {
    return json::object{{"decision", "deny"}, {"reason", "no"}};
  });
  session->initialize();
  REQUIRE(session->execute("try").status == "success");
  auto results = tool_messages(transcript(*session));
  REQUIRE(results.size() == 1);
  CHECK(text_of(tool_output(results[0])).rfind("Denied by hook: ", 0) == 0);
  CHECK(events.count("approval:denied") == 1);
  CHECK(events.count("tool:post") == 0);
}
