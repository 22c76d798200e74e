// The legacy message shape and its one conversion to content blocks (amplifier/legacy.hpp).
#include "amplifier/legacy.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using amplifier::read_stored_message;

namespace {

json::value convert(std::string_view text, bool *converted = nullptr) {
  return read_stored_message(json::parse(text), converted);
}

const json::array &blocks(const json::value &message) { return message.at("content").as_array(); }

}  // namespace

TEST_CASE("legacy assistant message: text first, then the tool calls in order, ids and arguments kept") {
  bool converted = false;
  const json::value message = convert(R"({"role":"assistant","content":"Let me look.",
      "tool_calls":[{"id":"call_a","name":"read_file","arguments":{"path":"a.txt"}},
                    {"id":"call_b","tool":"grep","arguments":"{\"pattern\":\"x\",\"n\":3}"}]})",
                                      &converted);
  CHECK(converted);
  CHECK_FALSE(message.as_object().contains("tool_calls"));
  const json::array &content = blocks(message);
  REQUIRE(content.size() == 3);
  CHECK(content[0] == json::parse(R"({"type":"text","text":"Let me look."})"));
  CHECK(content[1] == json::parse(R"({"type":"tool_call","id":"call_a","name":"read_file","input":{"path":"a.txt"}})"));
  // A JSON-string argument list becomes the object it holds.
  CHECK(content[2] == json::parse(R"({"type":"tool_call","id":"call_b","name":"grep","input":{"pattern":"x","n":3}})"));
}

TEST_CASE("null content gives no text block, never an empty one") {
  for (const char *content : {R"("content":null,)", "", R"("content":"",)"}) {
    CAPTURE(content);
    const json::value message = convert(std::string(R"({"role":"assistant",)") + content +
                                        R"("tool_calls":[{"id":"c1","name":"ls","arguments":{}}]})");
    const json::array &converted = blocks(message);
    REQUIRE(converted.size() == 1);
    CHECK(converted[0].at("type") == "tool_call");
  }
}

TEST_CASE("OpenAI-style tool calls are accepted") {
  const json::value message = convert(R"({"role":"assistant","content":null,"tool_calls":[
      {"id":"call_9","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]})");
  CHECK(blocks(message)[0] ==
        json::parse(R"({"type":"tool_call","id":"call_9","name":"get_weather","input":{"city":"Oslo"}})"));
}

TEST_CASE("arguments that are not a JSON object are kept verbatim, never lost") {
  const json::value message = convert(R"({"role":"assistant","content":"x","tool_calls":[
      {"id":"c1","name":"run","arguments":"{\"cmd\": \"ls"},
      {"id":"c2","name":"run","arguments":"[1,2]"},
      {"id":"c3","name":"run","arguments":"  "}]})");
  const json::array &content = blocks(message);
  REQUIRE(content.size() == 4);
  CHECK(content[1].at("input").as_object().empty());
  CHECK(content[1].at("arguments") == "{\"cmd\": \"ls");  // truncated JSON, as it was
  CHECK(content[2].at("arguments") == "[1,2]");
  CHECK_FALSE(content[3].as_object().contains("arguments"));  // blank means no arguments
}

TEST_CASE("a legacy tool message becomes a tool_result block") {
  const json::value message =
      convert(R"({"role":"tool","tool_call_id":"call_a","name":"read_file","content":"file text"})");
  CHECK(message.at("tool_call_id") == "call_a");
  CHECK(message.at("name") == "read_file");
  CHECK(blocks(message) ==
        json::parse(R"([{"type":"tool_result","tool_call_id":"call_a","output":"file text"}])"));
  // Without the id of its call a result cannot be placed: an error, not a guess.
  CHECK_THROWS_AS(convert(R"({"role":"tool","content":"orphan"})"), amplifier::ModelError);
}

TEST_CASE("a message already in the unified shape comes back as the same document") {
  const std::string unified =
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s=="},)"
      R"({"type":"tool_call","id":"c1","name":"ls","input":{}}],"metadata":{"k":1},"x_extra":true})";
  bool converted = true;
  CHECK(convert(unified, &converted) == json::parse(unified));
  CHECK_FALSE(converted);
  CHECK(convert(R"({"role":"user","content":"hello"})") == json::parse(R"({"role":"user","content":"hello"})"));
  CHECK_THROWS_AS(convert(R"({"role":"robot","content":"x"})"), amplifier::ModelError);
}

TEST_CASE("blocks plus a tool_calls list: calls already present as blocks are not doubled") {
  const json::value message = convert(R"({"role":"assistant",
      "content":[{"type":"text","text":"t"},{"type":"tool_call","id":"c1","name":"ls","input":{}}],
      "tool_calls":[{"id":"c1","name":"ls","arguments":{}},{"id":"c2","name":"cat","arguments":{}}]})");
  const json::array &content = blocks(message);
  REQUIRE(content.size() == 3);
  CHECK(content[1].at("id") == "c1");
  CHECK(content[2].at("id") == "c2");
}

TEST_CASE("StoredMessage admits both shapes and says which one it holds") {
  using amplifier::StoredMessage;
  auto legacy = amplifier::from_json<StoredMessage>(json::parse(R"({"role":"assistant","content":null})"));
  CHECK(legacy.is_legacy());
  CHECK_FALSE(legacy.content.has_value());
  auto unified = amplifier::from_json<StoredMessage>(json::parse(R"({"role":"user","content":"hi"})"));
  CHECK_FALSE(unified.is_legacy());
  const amplifier::Message message = amplifier::to_unified(std::move(legacy));
  CHECK(std::get<std::vector<amplifier::ContentBlock>>(message.content).empty());
}

TEST_CASE("a legacy call's fields named like the block's own stay valid and are not lost") {
  const json::value message = convert(R"({"role":"assistant","content":null,"tool_calls":[
      {"id":"c1","name":"f","arguments":{},"visibility":"internal"},
      {"id":"c2","name":"g","arguments":{},"visibility":{"b":2},"input":[1]}]})");
  const json::array &content = blocks(message);
  REQUIRE(content.size() == 2);
  CHECK(content[0].at("visibility") == "internal");
  CHECK(content[1].at("legacy_visibility") == json::parse(R"({"b":2})"));
  CHECK(content[1].at("legacy_input") == json::parse("[1]"));
  CHECK(content[1].at("input") == json::object());
  // The result is a valid unified message (the old conversion made one no reader accepted).
  CHECK_NOTHROW(amplifier::from_json<amplifier::Message>(message));
}
