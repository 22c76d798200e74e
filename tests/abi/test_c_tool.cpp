// tool-c-echo, the tool module written in plain C: called directly through the kernel, and
// through loop-basic with a scripted provider.
#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace amp_test;
namespace json = boost::json;

namespace {

constexpr std::string_view kToolOnlyPlan = R"(
session:
  orchestrator: loop-basic
  context: context-simple
tools:
  - module: tool-c-echo
)";

ToolReply call_c_module(amplifier::Session &session, std::string tool, std::string input_json) {
  return call_tool_directly(session, "c_upper", std::move(tool), std::move(input_json));
}

json::object upper_result(amplifier::Session &session, std::string input_json) {
  ToolReply reply = call_c_module(session, "c_upper", std::move(input_json));
  REQUIRE(reply.status == AMP_OK);
  REQUIRE(reply.payload.is_object());
  return reply.payload.get_object();
}

}  // namespace

TEST_CASE("the C tool uppercases ASCII letters and copies every other character") {
  auto session = make_session(kToolOnlyPlan);
  session->initialize();
  json::object result = upper_result(*session, R"({"text":"Hello, wörld! 123 ñ"})");
  CHECK(result.at("success") == true);
  CHECK(result.at("output") == "HELLO, WöRLD! 123 ñ");
}

TEST_CASE("the C tool decodes every JSON escape and escapes its output correctly") {
  auto session = make_session(kToolOnlyPlan);
  session->initialize();
  // Escapes of every kind, a surrogate pair, and characters that must be escaped on output.
  std::string input = R"({"text":"q\" b\\ s\/ \b\f\n\r\t \u0001 \u0061\u00e9\ud83d\ude00"})";
  json::object result = upper_result(*session, input);
  REQUIRE(result.at("output").is_string());
  CHECK(result.at("output").get_string() == "Q\" B\\ S/ \b\f\n\r\t \x01 A\xC3\xA9\xF0\x9F\x98\x80");
}

TEST_CASE("the C tool finds \"text\" among other keys and skips nested values") {
  auto session = make_session(kToolOnlyPlan);
  session->initialize();
  json::object result = upper_result(
      *session,
      R"({"before":{"a":[1,2.5e3,{"text":"nested"}],"s":"}]\"{"},"flag":true,"text":"x","after":null})");
  CHECK(result.at("output") == "X");
}

TEST_CASE("the C tool answers bad input with a failure the model can read") {
  auto session = make_session(kToolOnlyPlan);
  session->initialize();
  for (std::string input : {R"({})", R"({"text":5})", R"([1,2])", R"({"text":"unterminated)"}) {
    CAPTURE(input);
    // The coordinator is called directly, so even the malformed input reaches the module.
    ToolReply reply = call_c_module(*session, "c_upper", input);
    REQUIRE(reply.status == AMP_OK);
    json::object &result = reply.payload.get_object();
    CHECK(result.at("success") == false);
    CHECK(json::serialize(result.at("error")).find("c_upper") != std::string::npos);
  }
}

TEST_CASE("the C tool reports a tool name it does not offer as not found") {
  auto session = make_session(kToolOnlyPlan);
  session->initialize();
  ToolReply reply = call_c_module(*session, "c_lower", "{}");
  CHECK(reply.status == AMP_NOT_FOUND);
  REQUIRE(reply.payload.is_object());
  CHECK(string_at(reply.payload.get_object(), "kind") == "not_found");
  CHECK(string_at(reply.payload.get_object(), "message").find("\"c_lower\"") != std::string::npos);
}

TEST_CASE("the C tool's spec is mounted like any tool's") {
  auto session = make_session(kToolOnlyPlan);
  session->initialize();
  json::array specs = session->coordinator().tool_specs();
  REQUIRE(specs.size() == 1);
  const json::object &spec = specs[0].get_object();
  CHECK(spec.at("name") == "c_upper");
  CHECK(spec.at("parameters").at("required") == json::array{"text"});
}

TEST_CASE("the C tool runs through loop-basic and its result reaches the context") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config:
      responses:
        - text: "Uppercasing."
          tool_calls:
            - {id: call_upper, name: c_upper, input: {text: abc}}
        - text: "It is ABC."
tools:
  - module: tool-c-echo
)");
  EventLog events(session->hooks());
  session->initialize();
  amplifier::TurnResult turn = session->execute("uppercase abc");
  CHECK(turn.status == "success");
  CHECK(turn.response == "It is ABC.");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(string_at(results[0], "tool_call_id") == "call_upper");
  CHECK(tool_output(results[0]) == "ABC");
  CHECK_FALSE(tool_output_is_error(results[0]));
  CHECK(transcript_problems(messages).empty());
  auto posts = events.payloads("tool:post");
  REQUIRE(posts.size() == 1);
  CHECK(posts[0].at("result").at("output") == "ABC");
}

TEST_CASE("with the mock's default script the loop calls the C tool with {} and gets a readable error") {
  auto session = make_session(R"(
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
tools:
  - module: tool-c-echo
)");
  session->initialize();
  amplifier::TurnResult turn = session->execute("shout something");
  CHECK(turn.status == "success");
  json::array messages = transcript(*session);
  INFO(dump(messages));
  auto results = tool_messages(messages);
  REQUIRE(results.size() == 1);
  CHECK(tool_output_is_error(results[0]));
  REQUIRE(tool_output(results[0]).is_string());
  CHECK(std::string(tool_output(results[0]).get_string()).find("missing required property 'text'") != std::string::npos);
  CHECK(transcript_problems(messages).empty());
}
