// Conversation validation: each tool bookkeeping error, all reported at once.
#include <amplifier/validation.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace amplifier;

namespace {

std::vector<Message> conversation(std::string_view text) {
  return from_json<std::vector<Message>>(json::parse(text));
}

Message assistant_calling(std::string id, std::string name) {
  return Message{Role::assistant,
                 std::vector<ContentBlock>{ToolCallBlock{std::move(id), std::move(name), {}, {}, {}}},
                 {}, {}, {}, {}};
}

Message tool_answer(std::optional<std::string> tool_call_id) {
  return Message{Role::tool, std::string("result"), {}, std::move(tool_call_id), {}, {}};
}

}  // namespace

TEST_CASE("a well-formed tool conversation has no problems") {
  const auto messages = conversation(R"([
    {"role":"user","content":"list files"},
    {"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_call","id":"c1","name":"ls","input":{}}]},
    {"role":"tool","tool_call_id":"c1","content":"a b"},
    {"role":"user","content":[{"type":"tool_result","tool_call_id":"c1","output":"again"}]},
    {"role":"function","name":"legacy","content":"no id needed"}])");
  CHECK(validate_conversation(messages).empty());
  CHECK_NOTHROW(ensure_valid_conversation(messages));
}

TEST_CASE("a tool_call without id or name is reported") {
  const auto problems = validate_conversation({assistant_calling("", "")});
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "messages[0].content[0]: tool_call block has no id");
  CHECK(problems[1] == "messages[0].content[0]: tool_call block has no name");
}

TEST_CASE("a tool message without tool_call_id is reported") {
  const auto missing = validate_conversation({assistant_calling("c1", "ls"), tool_answer(std::nullopt)});
  REQUIRE(missing.size() == 1);
  CHECK(missing[0] == "messages[1]: tool message has no tool_call_id");

  const auto empty = validate_conversation({assistant_calling("c1", "ls"), tool_answer("")});
  CHECK(empty == std::vector<std::string>{"messages[1]: tool message has no tool_call_id"});
}

TEST_CASE("a tool message answering no earlier call is reported") {
  const auto problems = validate_conversation({tool_answer("ghost"), assistant_calling("ghost", "ls")});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] ==
        "messages[0]: tool message answers tool call 'ghost', but no earlier tool_call has that id");
}

TEST_CASE("tool_result blocks need an id that an earlier call made") {
  const auto messages = conversation(R"([
    {"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"ls","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_call_id":"c1","output":1},
                              {"type":"tool_result","tool_call_id":"c2","output":2}]}])");
  const auto problems = validate_conversation(messages);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "messages[1].content[1]: tool_result block answers tool call 'c2', but no "
                       "earlier tool_call has that id");

  Message blank_result{Role::user, std::vector<ContentBlock>{ToolResultBlock{"", "x", {}, {}}}, {}, {}, {}, {}};
  CHECK(validate_conversation({blank_result}) ==
        std::vector<std::string>{"messages[0].content[0]: tool_result block has no tool_call_id"});
}

TEST_CASE("every problem is returned, and the throwing variant lists them all") {
  const std::vector<Message> messages{assistant_calling("", "ls"), tool_answer(std::nullopt),
                                      tool_answer("nope")};
  CHECK(validate_conversation(messages).size() == 3);
  try {
    ensure_valid_conversation(messages);
    FAIL("expected a ModelError");
  } catch (const ModelError &error) {
    const std::string what = error.what();
    CHECK(what.find("messages[0].content[0]: tool_call block has no id") != std::string::npos);
    CHECK(what.find("messages[1]: tool message has no tool_call_id") != std::string::npos);
    CHECK(what.find("messages[2]: tool message answers tool call 'nope'") != std::string::npos);
  }
}
