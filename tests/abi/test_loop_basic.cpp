// loop-basic in real sessions, scripted through provider-mock: the tool loop, parallel tools,
// hooks, iteration limit, cancellation and the events that close every turn.
#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <future>
#include <mutex>
#include <string>

using namespace amp_test;
namespace json = boost::json;
using amplifier::HookAction;
using amplifier::HookResult;

namespace {

// A plan with loop-basic (config `loop_config`), context-simple, provider-mock (config
// `mock_config`) and the two test tool modules.
std::string plan(std::string_view mock_config, std::string_view loop_config = "{}") {
  return R"(
session:
  orchestrator: {module: loop-basic, config: )" +
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

// The events that end a turn: each exactly once, in order, with these statuses.
void check_turn_reported(const EventLog &events, std::string_view execution_status,
                         std::string_view completion_status, std::int64_t turn_count) {
  REQUIRE(events.count("execution:end") == 1);
  REQUIRE(events.count("orchestrator:complete") == 1);
  REQUIRE(events.count("prompt:complete") == 1);
  CHECK(events.index_of("execution:start") < events.index_of("execution:end"));
  CHECK(events.index_of("execution:end") < events.index_of("orchestrator:complete"));
  CHECK(events.index_of("orchestrator:complete") < events.index_of("prompt:complete"));
  auto end = events.payloads("execution:end")[0];
  CHECK(string_at(end, "status") == execution_status);
  CHECK(end.contains("response"));
  auto complete = events.payloads("orchestrator:complete")[0];
  CHECK(string_at(complete, "orchestrator") == "loop-basic");
  CHECK(string_at(complete, "status") == completion_status);
  CHECK(complete.at("turn_count") == turn_count);
}

HookResult deny(std::string reason) {
  HookResult r;
  r.action = HookAction::Deny;
  r.reason = std::move(reason);
  return r;
}

std::string text_of(const json::value &v) { return v.is_string() ? std::string(v.get_string()) : json::serialize(v); }

}  // namespace

TEST_CASE("the tool loop runs to a final answer, storing call, result and answer in order") {
  auto session = make_session(plan(R"(
      responses:
        - thinking: "I should uppercase it."
          signature: "sig-1"
          text: "Calling the tool."
          tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "The answer is ABC."
  )"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("uppercase abc");

  CHECK(turn.status == "success");
  CHECK(turn.response == "The answer is ABC.");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant", "tool", "assistant"});
  CHECK(tool_output(tool_messages(messages).at(0)) == "ABC");
  CHECK(transcript_problems(messages).empty());
  CHECK(events.count("provider:request") == 2);
  CHECK(events.count("provider:response") == 2);
  check_turn_reported(events, "completed", "success", 2);

  // The orchestrator's own events come in the contract's order.
  CHECK(events.index_of("execution:start") < events.index_of("prompt:submit"));
  CHECK(events.index_of("prompt:submit") < events.index_of("provider:request"));
  CHECK(events.index_of("tool:pre") < events.index_of("tool:post"));
  auto request = events.payloads("provider:request")[0];
  CHECK(string_at(request, "provider") == "provider-mock");
  CHECK(request.at("iteration") == 1);
  auto response = events.payloads("provider:response")[0];
  CHECK(response.at("tool_calls").as_array().size() == 1);
  CHECK(response.contains("usage"));
}

TEST_CASE("thinking is stored with its signature byte for byte, so the provider accepts it back") {
  // provider-mock refuses a request that alters or drops a signature it issued, as Anthropic
  // does: the second call succeeds only if the stored thinking block came back intact.
  const std::string signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDyh+/=";
  auto session = make_session(plan(R"(
      responses:
        - thinking: "Let me think about \"quotes\" and ünïcödé."
          signature: ")" + signature + R"("
          tool_calls:
            - {id: call_1, name: c_upper, input: {text: "x"}}
        - text: "Done."
  )"));
  session->initialize();
  amplifier::TurnResult turn = session->execute("think");
  CHECK(turn.status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  const json::object &assistant = messages.at(1).as_object();
  const json::object &thinking = assistant.at("content").as_array().at(0).as_object();
  CHECK(string_at(thinking, "type") == "thinking");
  CHECK(string_at(thinking, "thinking") == "Let me think about \"quotes\" and ünïcödé.");
  CHECK(string_at(thinking, "signature") == signature);
}

TEST_CASE("stream events are forwarded as content_block events while the call runs") {
  auto session = make_session(plan(R"(
      chunk_size: 3
      responses:
        - text: "Streaming text in pieces."
          tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "done"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("stream").status == "success");

  auto starts = events.payloads("content_block:start");
  auto deltas = events.payloads("content_block:delta");
  auto ends = events.payloads("content_block:end");
  REQUIRE_FALSE(starts.empty());
  CHECK(starts.size() == ends.size());
  CHECK(deltas.size() > starts.size());  // text in several pieces
  for (const auto &s : starts) {
    CHECK(s.contains("block_index"));
    CHECK_FALSE(string_at(s, "block_type").empty());
  }
  bool saw_text_delta = false, saw_partial_json = false;
  for (const auto &d : deltas) {
    CHECK(d.contains("block_index"));
    saw_text_delta |= d.contains("delta");
    saw_partial_json |= d.contains("partial_json");
  }
  CHECK(saw_text_delta);
  CHECK(saw_partial_json);  // the tool call's input
  for (const auto &e : ends) CHECK(e.at("block").is_object());
  // Live: the first response's blocks are announced before its provider:response.
  CHECK(events.index_of("content_block:end") < events.index_of("provider:response"));
}

TEST_CASE("the tool calls of one response run in parallel") {
  // Each rendezvous call finishes only once all three have started: run one at a time, the
  // first would time out with "only 1 of 3 calls ... ran at the same time".
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: r1, name: rendezvous, input: {group: trio, count: 3, timeout_ms: 3000}}
            - {id: r2, name: rendezvous, input: {group: trio, count: 3, timeout_ms: 3000}}
            - {id: r3, name: rendezvous, input: {group: trio, count: 3, timeout_ms: 3000}}
        - text: "all met"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("meet").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 3);
  for (const auto &r : results) {
    CHECK_FALSE(tool_output_is_error(r));
    CHECK(text_of(tool_output(r)) == "all 3 calls of trio met");
  }
  auto pres = events.payloads("tool:pre");
  REQUIRE(pres.size() == 3);
  CHECK_FALSE(string_at(pres[0], "parallel_group_id").empty());
  for (const auto &p : pres) CHECK(p.at("parallel_group_id") == pres[0].at("parallel_group_id"));
}

TEST_CASE("results are stored in the original call order even when they finish out of order") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: first, name: finish_after, input: {text: first, after: second}}
            - {id: second, name: finish_after, input: {text: second}}
        - text: "ordered"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("order").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 2);
  CHECK(string_at(results[0], "tool_call_id") == "first");
  CHECK(tool_output(results[0]) == "first");
  CHECK(string_at(results[1], "tool_call_id") == "second");
  CHECK(tool_output(results[1]) == "second");
  // tool:post follows completion: "second" really did finish first.
  auto posts = events.payloads("tool:post");
  REQUIRE(posts.size() == 2);
  CHECK(string_at(posts[0], "tool_call_id") == "second");
  CHECK(string_at(posts[1], "tool_call_id") == "first");
}

TEST_CASE("a tool:pre deny becomes a \"Denied by hook\" error result and the tool never runs") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "understood"
  )"));
  EventLog events(session->hooks());
  session->hooks().register_handler(
      "tool:pre", [](std::string_view, const json::object &) { return deny("no uppercase today"); });
  session->initialize();
  amplifier::TurnResult turn = session->execute("try");
  CHECK(turn.status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output(results[0]) == "Denied by hook: no uppercase today");
  CHECK(tool_output_is_error(results[0]));
  CHECK(events.count("tool:post") == 0);
  CHECK(transcript_problems(messages).empty());
}

namespace {

// A tool:pre handler that asks the user before c_upper runs.
HookResult ask_before_upper(std::string_view, const json::object &data) {
  HookResult r;
  if (string_at(data, "tool_name") != "c_upper") return r;
  r.action = HookAction::AskUser;
  r.approval_prompt = "Uppercase this text?";
  r.approval_timeout = 42;
  return r;
}

std::string plan_with_one_upper_call() {
  return plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - text: "understood"
  )");
}

}  // namespace

TEST_CASE("a tool:pre ask_user that the user allows runs the tool; the request says what is asked") {
  auto session = make_session(plan_with_one_upper_call());
  EventLog events(session->hooks());
  session->hooks().register_handler("tool:pre", ask_before_upper);
  std::vector<json::object> requests;  // the approval handler runs on the turn thread
  std::mutex requests_mutex;
  session->coordinator().set_approval_handler([&](const json::object &request) {
    std::lock_guard lock(requests_mutex);
    requests.push_back(request);
    return json::object{{"decision", "allow_once"}, {"reason", "looks fine"}};
  });
  session->initialize();
  amplifier::TurnResult turn = session->execute("try");
  CHECK(turn.status == "success");

  REQUIRE(requests.size() == 1);
  CHECK(string_at(requests[0], "prompt") == "Uppercase this text?");
  CHECK(string_at(requests[0], "tool_name") == "c_upper");
  CHECK(string_at(requests[0], "default") == "deny");
  CHECK(requests[0].at("timeout_seconds").to_number<double>() == 42);
  CHECK(requests[0].at("details").at("tool_input").at("text") == "abc");
  CHECK(requests[0].at("options").as_array().size() == 3);

  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output(results[0]) == "ABC");
  CHECK_FALSE(tool_output_is_error(results[0]));
  CHECK(events.count("approval:required") == 1);
  CHECK(events.count("approval:granted") == 1);
  CHECK(events.count("approval:denied") == 0);
  CHECK(events.index_of("approval:required") < events.index_of("approval:granted"));
  CHECK(events.index_of("approval:granted") < events.index_of("tool:post"));
  CHECK(string_at(events.payloads("approval:granted")[0], "decision") == "allow_once");
}

TEST_CASE("a tool:pre ask_user that the user denies never runs the tool: \"Denied by hook\"") {
  auto session = make_session(plan_with_one_upper_call());
  EventLog events(session->hooks());
  session->hooks().register_handler("tool:pre", ask_before_upper);
  session->coordinator().set_approval_handler([](const json::object &) {
    return json::object{{"decision", "deny"}, {"reason", "not today"}};
  });
  session->initialize();
  amplifier::TurnResult turn = session->execute("try");
  CHECK(turn.status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output_is_error(results[0]));
  CHECK(text_of(tool_output(results[0])).rfind("Denied by hook: ", 0) == 0);
  CHECK(text_of(tool_output(results[0])).find("not today") != std::string::npos);
  CHECK(events.count("tool:post") == 0);
  CHECK(events.count("approval:required") == 1);
  CHECK(events.count("approval:denied") == 1);
  CHECK(events.count("approval:granted") == 0);
  CHECK(transcript_problems(messages).empty());
}

TEST_CASE("an ask_user with nobody to ask gets its default: deny unless the hook says allow") {
  auto session = make_session(plan_with_one_upper_call());
  EventLog events(session->hooks());
  session->hooks().register_handler("tool:pre", ask_before_upper);
  session->initialize();  // no approval handler: the coordinator answers the request's default
  REQUIRE(session->execute("try").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(text_of(tool_output(results[0])).rfind("Denied by hook: ", 0) == 0);
  CHECK(events.count("approval:denied") == 1);
}

TEST_CASE("a tool:post modify replaces the result the model sees") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "secret"}}
        - text: "ok"
  )"));
  session->hooks().register_handler("tool:post", [](std::string_view, const json::object &data) {
    HookResult r;
    r.action = HookAction::Modify;
    json::object replaced = data;
    replaced["result"] = json::object{{"success", true}, {"output", "[redacted]"}};
    r.data = std::move(replaced);
    return r;
  });
  session->initialize();
  REQUIRE(session->execute("redact").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output(results[0]) == "[redacted]");
  CHECK(dump(messages).find("SECRET") == std::string::npos);
}

TEST_CASE("a tool result over max_tool_result_chars is cut, with a note, before the context; hooks saw it whole") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abcdefghiéjklmnop"}}
            - {id: call_2, name: c_upper, input: {text: "short"}}
        - text: "ok"
  )",
                                   R"({max_tool_result_chars: 10})"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("shout").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 2);
  // Ten characters, the tenth a two-byte one, then the note.
  CHECK(tool_output(results[0]) ==
        "ABCDEFGHIé\n\n[output cut: 17 characters, showing the first 10; ask for a narrower part "
        "(a range, a filter, a search) to see the rest]");
  CHECK(tool_output(results[1]) == "SHORT");
  CHECK(transcript_problems(messages).empty());

  auto cuts = events.payloads("tool:result_cut");
  REQUIRE(cuts.size() == 1);
  CHECK(string_at(cuts[0], "tool_name") == "c_upper");
  CHECK(string_at(cuts[0], "tool_call_id") == "call_1");
  CHECK(cuts[0].at("original_chars") == 17);
  CHECK(cuts[0].at("kept_chars") == 10);
  CHECK(cuts[0].at("max_tool_result_chars") == 10);
  bool whole_seen = false;  // tool:post had the whole result
  for (const auto &post : events.payloads("tool:post"))
    whole_seen = whole_seen || post.at("result").at("output") == "ABCDEFGHIéJKLMNOP";
  CHECK(whole_seen);
}

TEST_CASE("by default a result over 100000 characters is cut; a structured one becomes its JSON text") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "list"}}
        - text: "ok"
  )"));
  json::array lines;
  for (int i = 0; i < 20000; ++i) lines.emplace_back("line " + std::to_string(i));
  const std::string whole = json::serialize(json::object{{"lines", lines}});
  REQUIRE(whole.size() > 100000);
  session->hooks().register_handler("tool:post", [&](std::string_view, const json::object &data) {
    HookResult r;
    r.action = HookAction::Modify;
    json::object replaced = data;
    replaced["result"] = json::object{{"success", true}, {"output", json::object{{"lines", lines}}}};
    r.data = std::move(replaced);
    return r;
  });
  session->initialize();
  REQUIRE(session->execute("list").status == "success");
  auto results = tool_messages(transcript(*session));
  REQUIRE(results.size() == 1);
  const json::value output = tool_output(results[0]);
  REQUIRE(output.is_string());
  CHECK(std::string(output.get_string()) ==
        whole.substr(0, 100000) + "\n\n[output cut: " + std::to_string(whole.size()) +
            " characters, showing the first 100000; ask for a narrower part (a range, a filter, "
            "a search) to see the rest]");
}

TEST_CASE("max_tool_result_chars 0 keeps every result whole") {
  const std::string text(150000, 'x');
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: ")" + text + R"("}}
        - text: "ok"
  )",
                                   R"({max_tool_result_chars: 0})"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("shout").status == "success");
  auto results = tool_messages(transcript(*session));
  REQUIRE(results.size() == 1);
  CHECK(text_of(tool_output(results[0])) == std::string(150000, 'X'));
  CHECK(events.count("tool:result_cut") == 0);
}

TEST_CASE("a tool the model invents gets tool:error and an error result naming the real tools") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: no_such_tool, input: {}}
        - text: "sorry"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  REQUIRE(session->execute("invent").status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output_is_error(results[0]));
  std::string output = text_of(tool_output(results[0]));
  CHECK(output.find("no_such_tool") != std::string::npos);
  CHECK(output.find("c_upper") != std::string::npos);
  auto errors = events.payloads("tool:error");
  REQUIRE(errors.size() == 1);
  CHECK(string_at(errors[0], "tool_name") == "no_such_tool");
  CHECK(errors[0].at("error").is_object());
}

TEST_CASE("a prompt:submit deny ends the turn before anything is stored or requested") {
  auto session = make_session(plan("{}"));
  EventLog events(session->hooks());
  session->hooks().register_handler(
      "prompt:submit", [](std::string_view, const json::object &) { return deny("not this prompt"); });
  session->initialize();
  amplifier::TurnResult turn = session->execute("forbidden");
  CHECK(turn.status == "incomplete");
  CHECK(turn.response.find("not this prompt") != std::string::npos);
  CHECK(events.count("provider:request") == 0);
  CHECK(transcript(*session).empty());
  check_turn_reported(events, "completed", "incomplete", 0);
}

TEST_CASE("hook injections: durable ones are stored, ephemeral ones reach one request only") {
  // No tools: the mock's default reply echoes the last user message of the request it got.
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
)");
  // Two handlers, two lifetimes: the combined result must keep each injection's own flag.
  session->hooks().register_handler("provider:request", [](std::string_view, const json::object &) {
    HookResult r;
    r.action = HookAction::InjectContext;
    r.context_injection = "Remember the milk.";
    r.context_injection_role = "user";
    r.ephemeral = true;
    return r;
  });
  session->hooks().register_handler("provider:request", [](std::string_view, const json::object &) {
    HookResult r;
    r.action = HookAction::InjectContext;
    r.context_injection = "Durable note.";
    return r;
  });
  session->initialize();
  amplifier::TurnResult turn = session->execute("hello");
  REQUIRE(turn.status == "success");
  CHECK(turn.response.find("Remember the milk.") != std::string::npos);  // it reached the request
  json::array messages = transcript(*session);
  INFO(dump(messages));
  CHECK(roles(messages) == std::vector<std::string>{"user", "system", "assistant"});
  CHECK(messages.at(1).at("content") == "Durable note.");
  for (const auto &m : messages)
    if (string_at(m.as_object(), "role") == "user") CHECK(m.at("content") == "hello");
}

TEST_CASE("max_iterations: after the limit, one final call without tools and with a reminder") {
  // The script has one response; the final call gets the mock's default behaviour, which
  // calls a tool when tools are offered and otherwise echoes the last user message: here,
  // the reminder. So the answer shows both that no tools were offered and what was sent.
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
  CHECK_FALSE(requests[0].contains("max_reached"));
  CHECK(requests[1].at("max_reached") == true);
  json::array messages = transcript(*session);
  INFO(dump(messages));
  // The reminder went to the provider (the mock echoed it) but was never stored itself.
  for (const auto &m : messages)
    if (string_at(m.as_object(), "role") == "user")
      CHECK(json::serialize(m).find("orchestrator-loop-limit") == std::string::npos);
  CHECK(transcript_problems(messages).empty());
  check_turn_reported(events, "completed", "success", 2);
}

TEST_CASE("max_iterations: tool calls in the final response are refused, the transcript stays valid") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: call_1, name: c_upper, input: {text: "abc"}}
        - tool_calls:
            - {id: call_2, name: c_upper, input: {text: "def"}}
  )", "{max_iterations: 1}"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("loop forever");
  CHECK(turn.status == "incomplete");
  CHECK(events.count("tool:pre") == 1);  // call_2 never ran
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 2);
  CHECK(text_of(tool_output(results[1])).find("iteration limit") != std::string::npos);
  CHECK(transcript_problems(messages).empty());
  CHECK(roles(messages).back() == "assistant");
  check_turn_reported(events, "completed", "incomplete", 2);
}

TEST_CASE("a provider error emits provider:error and ends the turn with status error") {
  auto session = make_session(plan(R"(
      responses:
        - error: {kind: rate_limit, message: "slow down"}
  )"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("hurry");
  CHECK(turn.status == "error");
  REQUIRE(turn.error.is_object());
  CHECK(string_at(turn.error.as_object(), "kind") == "rate_limit");
  CHECK(turn.response.find("slow down") != std::string::npos);
  auto errors = events.payloads("provider:error");
  REQUIRE(errors.size() == 1);
  CHECK(string_at(errors[0], "provider") == "provider-mock");
  CHECK(errors[0].at("retryable") == true);
  CHECK(errors[0].contains("status_code"));
  CHECK(string_at(errors[0].at("error").as_object(), "kind") == "rate_limit");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant"});  // closed for the next turn
  check_turn_reported(events, "error", "incomplete", 1);
}

namespace {

// Two turns of about a thousand tokens each, answered by the first two scripted responses.
void run_two_long_turns(amplifier::Session &session) {
  REQUIRE(session.execute("first: " + std::string(4000, 'a')).status == "success");
  REQUIRE(session.execute("second: " + std::string(4000, 'b')).status == "success");
}

std::int64_t input_tokens_of(const json::object &provider_response) {
  return provider_response.at("usage").at("input_tokens").to_number<std::int64_t>();
}

std::vector<json::object> with_reason(const std::vector<json::object> &payloads,
                                      std::string_view reason) {
  std::vector<json::object> found;
  for (const auto &p : payloads)
    if (string_at(p, "reason") == reason) found.push_back(p);
  return found;
}

}  // namespace

TEST_CASE("a context_length error compacts the conversation and retries once, smaller") {
  auto session = make_session(plan(R"(
      responses:
        - text: "one"
        - text: "two"
        - error: {kind: context_length, message: "prompt is too long"}
        - text: "recovered"
        - text: "four"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  run_two_long_turns(*session);
  const auto before = events.payloads("provider:response");
  REQUIRE(before.size() == 2);

  amplifier::TurnResult turn = session->execute("third");
  CHECK(turn.status == "success");
  CHECK(turn.response == "recovered");
  auto retries = events.payloads("provider:retry");
  REQUIRE(retries.size() == 1);
  CHECK(string_at(retries[0], "reason") == "context_length");
  CHECK(string_at(retries[0], "provider") == "provider-mock");
  CHECK(retries[0].at("attempt") == 2);
  CHECK(string_at(retries[0].at("error").as_object(), "kind") == "context_length");
  CHECK(events.count("provider:error") == 0);
  CHECK(events.count("provider:request") == 3);  // the retry belongs to the same iteration
  auto compactions = with_reason(events.payloads("context:post_compact"), "context_length");
  REQUIRE(compactions.size() == 1);
  CHECK(compactions[0].at("messages_after").to_number<int>() <
        compactions[0].at("messages_before").to_number<int>());
  CHECK(events.index_of("context:post_compact") < events.index_of("provider:retry"));
  // What the provider received was smaller than the request of the turn before.
  const auto after = events.payloads("provider:response");
  REQUIRE(after.size() == 3);
  CHECK(input_tokens_of(after[2]) < input_tokens_of(before[1]));
  // The history itself is whole: compaction shapes requests only.
  CHECK(transcript(*session).size() == 6);

  // Later requests to that provider stay within the budget learnt from the refusal.
  REQUIRE(session->execute("fourth").status == "success");
  CHECK(with_reason(events.payloads("context:pre_compact"), "threshold").size() == 1);
  CHECK(events.count("provider:retry") == 1);
}

TEST_CASE("a context_length error on the compacted retry too fails the turn with that error") {
  auto session = make_session(plan(R"(
      responses:
        - text: "one"
        - text: "two"
        - error: {kind: context_length, message: "prompt is too long"}
        - error: {kind: context_length, message: "still too long"}
        - text: "next turn"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  run_two_long_turns(*session);
  amplifier::TurnResult turn = session->execute("third");
  CHECK(turn.status == "error");
  REQUIRE(turn.error.is_object());
  CHECK(string_at(turn.error.as_object(), "kind") == "context_length");
  CHECK(string_at(turn.error.as_object(), "message") == "still too long");
  CHECK(events.count("provider:retry") == 1);
  CHECK(events.count("provider:error") == 1);
  CHECK(transcript_problems(transcript(*session)).empty());
  // Exactly two calls were made: the next turn gets the next scripted response.
  CHECK(session->execute("again").response == "next turn");
}

TEST_CASE("a context_length error that compaction cannot help is not retried with the same request") {
  auto session = make_session(plan(R"(
      responses:
        - error: {kind: context_length, message: "prompt is too long"}
        - text: "next turn"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("one huge prompt");
  CHECK(turn.status == "error");
  REQUIRE(turn.error.is_object());
  CHECK(string_at(turn.error.as_object(), "kind") == "context_length");
  CHECK(string_at(turn.error.as_object(), "message") ==
        "prompt is too long (compacting the conversation could not make the request smaller)");
  CHECK(events.count("provider:retry") == 0);
  CHECK(events.count("provider:error") == 1);
  CHECK(session->execute("again").response == "next turn");
}

TEST_CASE("a context_length error after content was streamed is not retried") {
  auto session = make_session(plan(R"(
      responses:
        - text: "one"
        - text: "two"
        - {text: "partial answer", error: {kind: context_length, message: "too long midway"}}
        - text: "next turn"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  run_two_long_turns(*session);
  amplifier::TurnResult turn = session->execute("third");
  CHECK(turn.status == "error");
  CHECK(events.count("provider:retry") == 0);
  CHECK(session->execute("again").response == "next turn");
}

TEST_CASE("without a provider the turn fails with a configuration error that says so") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
)");
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("anyone?");
  CHECK(turn.status == "error");
  REQUIRE(turn.error.is_object());
  CHECK(string_at(turn.error.as_object(), "kind") == "configuration");
  CHECK(turn.response.find("no provider is mounted") != std::string::npos);
  check_turn_reported(events, "error", "incomplete", 0);
}

TEST_CASE("a forced provider that is not mounted fails the turn naming it and the mounted ones") {
  auto session = make_session(plan("{}", "{provider: provider-elsewhere}"));
  session->initialize();
  amplifier::TurnResult turn = session->execute("hello");
  CHECK(turn.status == "error");
  CHECK(turn.response.find("provider-elsewhere") != std::string::npos);
  CHECK(turn.response.find("provider-mock") != std::string::npos);
}

TEST_CASE("graceful cancellation lets the running tool finish, keeps its result, calls no provider") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: run_1, name: emit_then_finish, input: {text: "kept"}}
        - text: "must never be requested"
  )"));
  EventLog events(session->hooks());
  amplifier::Session *s = session.get();
  // Runs while the tool call is in progress (inside its execute, on the tool's thread).
  session->hooks().register_handler("test:tool_running", [s](std::string_view, const json::object &) {
    s->cancel(amplifier::CancelLevel::Graceful);
    return HookResult{};
  });
  session->initialize();
  amplifier::TurnResult turn = session->execute("work");
  CHECK(turn.status == "cancelled");
  CHECK(events.count("provider:request") == 1);
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output(results[0]) == "kept");
  CHECK_FALSE(tool_output_is_error(results[0]));
  CHECK(transcript_problems(messages).empty());
  CHECK(roles(messages).back() == "assistant");
  check_turn_reported(events, "cancelled", "cancelled", 1);
}

TEST_CASE("graceful cancellation during tool:pre starts no tool, yet every call gets a result") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: a, name: c_upper, input: {text: "a"}}
            - {id: b, name: c_upper, input: {text: "b"}}
        - text: "must never be requested"
  )"));
  EventLog events(session->hooks());
  amplifier::Session *s = session.get();
  session->hooks().register_handler("tool:pre", [s](std::string_view, const json::object &) {
    s->cancel(amplifier::CancelLevel::Graceful);
    return HookResult{};
  });
  session->initialize();
  amplifier::TurnResult turn = session->execute("work");
  CHECK(turn.status == "cancelled");
  CHECK(events.count("tool:post") == 0);
  CHECK(events.count("provider:request") == 1);
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 2);
  for (const auto &r : results) {
    CHECK(tool_output_is_error(r));
    CHECK(text_of(tool_output(r)).find("Not run") != std::string::npos);
  }
  CHECK(transcript_problems(messages).empty());
}

TEST_CASE("a cancel during the provider:request hooks starts no provider call") {
  auto session = make_session(plan(R"(
      responses:
        - text: "must never be requested"
  )"));
  EventLog events(session->hooks());
  amplifier::Session *s = session.get();
  session->hooks().register_handler("provider:request", [s](std::string_view, const json::object &) {
    s->cancel(amplifier::CancelLevel::Graceful);
    return HookResult{};
  });
  session->initialize();
  amplifier::TurnResult turn = session->execute("work");
  CHECK(turn.status == "cancelled");
  CHECK(events.count("content_block:start") == 0);
  CHECK(events.count("provider:response") == 0);
  json::array messages = transcript(*session);
  INFO(dump(messages));
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant"});
  check_turn_reported(events, "cancelled", "cancelled", 0);
}

TEST_CASE("immediate cancellation stops the in-flight provider call; nothing partial is stored") {
  // 400 one-character deltas 20 ms apart: about 8 s if the call ran to its end.
  auto session = make_session(plan(R"(
      chunk_size: 1
      delay_ms: 20
      responses:
        - text: ")" + std::string(400, 'x') + R"("
  )"));
  EventLog events(session->hooks());
  session->initialize();
  auto turn = std::async(std::launch::async, [&] { return session->execute("stream a lot"); });
  REQUIRE(events.wait_for("content_block:delta", kPatience));
  session->cancel(amplifier::CancelLevel::Immediate);
  REQUIRE(turn.wait_for(kPatience) == std::future_status::ready);
  amplifier::TurnResult result = turn.get();
  CHECK(result.status == "cancelled");
  CHECK(events.count("provider:response") == 0);
  CHECK(events.count("content_block:end") == 0);  // the text block never completed
  json::array messages = transcript(*session);
  INFO(dump(messages));
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant"});
  CHECK(dump(messages).find("xxxx") == std::string::npos);
  check_turn_reported(events, "cancelled", "cancelled", 1);
}

TEST_CASE("immediate cancellation with a tool still running: synthetic result, finished ones kept") {
  auto session = make_session(plan(R"(
      responses:
        - tool_calls:
            - {id: blocker, name: block_until_cancelled, input: {}}
            - {id: quick, name: c_upper, input: {text: "abc"}}
        - text: "must never be requested"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  auto turn = std::async(std::launch::async, [&] { return session->execute("work"); });
  REQUIRE(events.wait_for("test:tool_blocking", kPatience));
  REQUIRE(events.wait_for("tool:post", kPatience, [](const json::object &p) {
    return string_at(p, "tool_call_id") == "quick";
  }));
  session->cancel(amplifier::CancelLevel::Immediate);
  REQUIRE(turn.wait_for(kPatience) == std::future_status::ready);
  CHECK(turn.get().status == "cancelled");
  CHECK(events.count("provider:request") == 1);

  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 2);
  CHECK(string_at(results[0], "tool_call_id") == "blocker");
  CHECK(tool_output_is_error(results[0]));
  CHECK(text_of(tool_output(results[0])).find("cancelled") != std::string::npos);
  CHECK(string_at(results[1], "tool_call_id") == "quick");
  CHECK(tool_output(results[1]) == "ABC");
  CHECK(transcript_problems(messages).empty());
  CHECK(roles(messages).back() == "assistant");
  auto errors = events.payloads("tool:error");
  REQUIRE(errors.size() == 1);
  CHECK(string_at(errors[0], "tool_call_id") == "blocker");
  check_turn_reported(events, "cancelled", "cancelled", 1);
}

TEST_CASE("a session keeps working turn after turn, each turn reported once") {
  auto session = make_session(plan(R"(
      responses:
        - text: "first answer"
        - text: "second answer"
  )"));
  EventLog events(session->hooks());
  session->initialize();
  CHECK(session->execute("one").response == "first answer");
  CHECK(session->execute("two").response == "second answer");
  CHECK(events.count("execution:end") == 2);
  CHECK(events.count("orchestrator:complete") == 2);
  CHECK(events.count("session:start") == 1);
  json::array messages = transcript(*session);
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant", "user", "assistant"});
}
