// HookResult <-> JSON: Amplifier's field names, validation, unknown fields, round trips.
#include "amplifier/hooks.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace amplifier;
namespace json = boost::json;

namespace {

void check_same(const HookResult &a, const HookResult &b) {
  CHECK(a.action == b.action);
  CHECK(a.data == b.data);
  CHECK(a.reason == b.reason);
  CHECK(a.context_injection == b.context_injection);
  CHECK(a.context_injection_role == b.context_injection_role);
  CHECK(a.ephemeral == b.ephemeral);
  CHECK(a.append_to_last_tool_result == b.append_to_last_tool_result);
  CHECK(a.approval_prompt == b.approval_prompt);
  CHECK(a.approval_options == b.approval_options);
  CHECK(a.approval_timeout == b.approval_timeout);
  CHECK(a.approval_default == b.approval_default);
  CHECK(a.suppress_output == b.suppress_output);
  CHECK(a.user_message == b.user_message);
  CHECK(a.user_message_level == b.user_message_level);
  REQUIRE(a.injections.size() == b.injections.size());
  for (std::size_t i = 0; i < a.injections.size(); ++i) {
    CHECK(a.injections[i].text == b.injections[i].text);
    CHECK(a.injections[i].role == b.injections[i].role);
    CHECK(a.injections[i].ephemeral == b.injections[i].ephemeral);
    CHECK(a.injections[i].append_to_last_tool_result == b.injections[i].append_to_last_tool_result);
  }
  CHECK(a.extra == b.extra);
}

std::string error_of(const json::value &v) {
  try {
    HookResult::from_json(v);
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("hook action names") {
  for (auto action : {HookAction::Continue, HookAction::Deny, HookAction::Modify,
                      HookAction::InjectContext, HookAction::AskUser})
    CHECK(hook_action_from_string(to_string(action)) == action);
  CHECK(to_string(HookAction::InjectContext) == "inject_context");
  CHECK(to_string(HookAction::AskUser) == "ask_user");
  CHECK_THROWS_WITH_AS(hook_action_from_string("block"), doctest::Contains("'block'"),
                       std::invalid_argument);
}

TEST_CASE("null and an empty object mean continue") {
  check_same(HookResult::from_json(nullptr), HookResult{});
  check_same(HookResult::from_json(json::object{}), HookResult{});
}

TEST_CASE("every Amplifier field is parsed") {
  const json::value v = json::parse(R"({
    "action": "ask_user", "data": {"x": 1}, "reason": "risky",
    "context_injection": "note", "context_injection_role": "user", "ephemeral": true,
    "append_to_last_tool_result": true, "approval_prompt": "Allow?",
    "approval_options": ["yes", "no"], "approval_timeout": 12.5, "approval_default": "allow",
    "suppress_output": true, "user_message": "careful", "user_message_level": "warning"
  })");
  const HookResult r = HookResult::from_json(v);
  CHECK(r.action == HookAction::AskUser);
  CHECK(r.data == json::parse(R"({"x": 1})"));
  CHECK(r.reason == "risky");
  CHECK(r.context_injection == "note");
  CHECK(r.context_injection_role == "user");
  CHECK(r.ephemeral);
  CHECK(r.append_to_last_tool_result);
  CHECK(r.approval_prompt == "Allow?");
  CHECK(r.approval_options == std::vector<std::string>{"yes", "no"});
  CHECK(r.approval_timeout == 12.5);
  CHECK(r.approval_default == "allow");
  CHECK(r.suppress_output);
  CHECK(r.user_message == "careful");
  CHECK(r.user_message_level == "warning");
  CHECK(r.extra.empty());
}

TEST_CASE("null fields (Python's None) take their defaults") {
  const HookResult r = HookResult::from_json(json::parse(
      R"({"action": "continue", "reason": null, "approval_options": null, "approval_timeout": null,
          "context_injection_role": null, "data": null})"));
  check_same(r, HookResult{});
}

TEST_CASE("integer timeouts are accepted") {
  CHECK(HookResult::from_json(json::parse(R"({"approval_timeout": 60})")).approval_timeout == 60.0);
}

TEST_CASE("unknown fields are kept in extra and written back") {
  const json::value v = json::parse(R"({"action": "deny", "reason": "no", "policy_id": "p-7", "score": [1, 2]})");
  const HookResult r = HookResult::from_json(v);
  CHECK(r.extra.at("policy_id") == "p-7");
  CHECK(r.extra.at("score") == json::parse("[1, 2]"));
  const json::object out = r.to_json();
  CHECK(out.at("policy_id") == "p-7");
  CHECK(json::value(out) == v);
}

TEST_CASE("malformed results are rejected with a message naming the field") {
  CHECK(error_of(json::parse(R"({"action": "explode"})")).find("'explode'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"action": 3})")).find("'action'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"ephemeral": "yes"})")).find("'ephemeral'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"approval_options": "yes"})")).find("'approval_options'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"approval_options": ["yes", 2]})")).find("'approval_options'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"approval_timeout": "soon"})")).find("'approval_timeout'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"approval_timeout": -1})")).find("negative") != std::string::npos);
  CHECK(error_of(json::parse(R"({"context_injection_role": "narrator"})")).find("system, user, assistant") != std::string::npos);
  CHECK(error_of(json::parse(R"({"approval_default": "maybe"})")).find("'approval_default'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"user_message_level": "loud"})")).find("'user_message_level'") != std::string::npos);
  CHECK(error_of(json::parse(R"({"reason": 5})")).find("expected a string") != std::string::npos);
  CHECK(error_of(json::parse(R"([1, 2])")).find("JSON object") != std::string::npos);
  CHECK(error_of(json::parse(R"("continue")")).find("JSON object") != std::string::npos);
}

TEST_CASE("to_json writes only what differs from the defaults") {
  const json::object out = HookResult{}.to_json();
  CHECK(json::value(out) == json::parse(R"({"action": "continue"})"));
}

TEST_CASE("round trip of a fully populated result, including combined injections") {
  HookResult r;
  r.action = HookAction::InjectContext;
  r.data = json::parse(R"({"tool_name": "bash", "n": [1, 2.5, null]})");
  r.reason = "why";
  r.context_injection = "a\n\nb";
  r.context_injection_role = "assistant";
  r.ephemeral = true;
  r.append_to_last_tool_result = true;
  r.approval_prompt = "ok?";
  r.approval_options = {"allow", "deny"};
  r.approval_timeout = 5;
  r.approval_default = "allow";
  r.suppress_output = true;
  r.user_message = "hello";
  r.user_message_level = "error";
  r.injections = {{"a", "system", true, false}, {"b", "user", false, true}};
  r.extra["custom"] = "kept";

  const json::object out = r.to_json();
  CHECK(out.at("action") == "inject_context");
  CHECK(out.at("injections").as_array().size() == 2);
  check_same(HookResult::from_json(out), r);
  // And through text, as a module would send it.
  check_same(HookResult::from_json(json::parse(json::serialize(out))), r);
}
