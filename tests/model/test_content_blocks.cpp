// Content blocks: every type survives a JSON round trip, unknown fields and types included.
#include <amplifier/content.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

namespace json = boost::json;
using namespace amplifier;

namespace {

// Parses `text` as a block and writes it back; the result must equal the input document.
ContentBlock round_trip(std::string_view text) {
  const json::value original = json::parse(text);
  ContentBlock block = from_json<ContentBlock>(original);
  CHECK(json::value(to_json(block)) == original);
  return block;
}

std::string error_of(std::string_view text) {
  try {
    (void)from_json<ContentBlock>(json::parse(text));
  } catch (const ModelError &error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("text block round trip keeps visibility and unknown fields") {
  const ContentBlock block = round_trip(
      R"({"type":"text","text":"héllo \"world\"\n","visibility":"user","citations":[{"n":1}]})");
  const auto *text = block_as<TextBlock>(block);
  REQUIRE(text != nullptr);
  CHECK(text->text == "héllo \"world\"\n");
  CHECK(text->visibility == "user");
  CHECK(text->extra.at("citations").as_array().size() == 1);
  CHECK(block_type(block) == "text");
}

TEST_CASE("thinking block keeps its signature byte for byte") {
  // Base64 with +/=, a non-ASCII character and an escaped control character.
  const std::string signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3h+/=\xC3\xA9\x01tail";
  json::object original{{"type", "thinking"}, {"thinking", "Let me think."},
                        {"signature", signature}, {"visibility", "internal"}};
  const std::string wire = json::serialize(original);

  const ContentBlock block = from_json<ContentBlock>(json::parse(wire));
  const auto *thinking = block_as<ThinkingBlock>(block);
  REQUIRE(thinking != nullptr);
  REQUIRE(thinking->signature.has_value());
  CHECK(*thinking->signature == signature);
  CHECK(json::serialize(to_json(block)) == wire);
}

TEST_CASE("thinking block without signature, or with a null one, has none on output") {
  const ContentBlock absent = round_trip(R"({"type":"thinking","thinking":"hm"})");
  CHECK_FALSE(block_as<ThinkingBlock>(absent)->signature.has_value());

  const ContentBlock null_signature =
      from_json<ContentBlock>(json::parse(R"({"type":"thinking","thinking":"hm","signature":null})"));
  CHECK_FALSE(to_json(null_signature).contains("signature"));
}

TEST_CASE("redacted_thinking, tool_call, tool_result and image blocks round trip") {
  const ContentBlock redacted =
      round_trip(R"({"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"})");
  CHECK(block_as<RedactedThinkingBlock>(redacted)->data == "EmwKAhgBEgy3va3pzix/LafPsn4a");

  const ContentBlock call = round_trip(
      R"({"type":"tool_call","id":"call_1","name":"read_file","input":{"path":"a.txt","lines":[1,2]},"thought_signature":"sig=="})");
  const auto *tool_call = block_as<ToolCallBlock>(call);
  REQUIRE(tool_call != nullptr);
  CHECK(tool_call->id == "call_1");
  CHECK(tool_call->name == "read_file");
  CHECK(tool_call->input.at("path") == "a.txt");
  CHECK(tool_call->extra.at("thought_signature") == "sig==");  // Gemini's, kept as is

  const ContentBlock result = round_trip(
      R"({"type":"tool_result","tool_call_id":"call_1","output":{"ok":true,"lines":["x"]}})");
  CHECK(block_as<ToolResultBlock>(result)->output.as_object().at("ok") == true);
  round_trip(R"({"type":"tool_result","tool_call_id":"call_2","output":"plain text"})");
  round_trip(R"({"type":"tool_result","tool_call_id":"call_3","output":null})");

  const ContentBlock image = round_trip(
      R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}})");
  CHECK(block_as<ImageBlock>(image)->source.at("media_type") == "image/png");
}

TEST_CASE("reasoning block keeps content and summary as strings or arrays") {
  const ContentBlock arrays = round_trip(
      R"({"type":"reasoning","content":[{"type":"reasoning_text","text":"a"}],"summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"gAAAA"})");
  const auto *reasoning = block_as<ReasoningBlock>(arrays);
  REQUIRE(reasoning != nullptr);
  CHECK(reasoning->content.is_array());
  CHECK(reasoning->summary.is_array());
  CHECK(reasoning->extra.at("encrypted_content") == "gAAAA");

  const ContentBlock strings = round_trip(R"({"type":"reasoning","content":"step 1","summary":"short"})");
  CHECK(block_as<ReasoningBlock>(strings)->content == "step 1");

  const ContentBlock bare = round_trip(R"({"type":"reasoning"})");
  CHECK(block_as<ReasoningBlock>(bare)->summary.is_null());

  CHECK(error_of(R"({"type":"reasoning","content":42})") == "content: expected a string or an array");
}

TEST_CASE("a block of an unknown type survives unchanged") {
  const ContentBlock block =
      round_trip(R"({"type":"web_search_result","url":"https://example.com","nested":{"a":[1,2.5,null]}})");
  REQUIRE(std::holds_alternative<UnknownBlock>(block));
  CHECK(block_type(block) == "web_search_result");
}

TEST_CASE("malformed blocks name the problem") {
  CHECK(error_of(R"({"type":"tool_call","name":"x","input":{}})") == "tool_call block has no id");
  CHECK(error_of(R"({"type":"tool_call","id":"c","input":{}})") == "tool_call block has no name");
  CHECK(error_of(R"({"type":"tool_call","id":"c","name":"x","input":"{}"})") ==
        "input: expected an object, got string");
  CHECK(error_of(R"({"type":"text","text":5})") == "text: expected a string, got int64");
  CHECK(error_of(R"({"text":"no type"})") == "content block has no type");
  CHECK(error_of(R"({"type":"tool_result","output":1})") == "tool_result block has no tool_call_id");
  CHECK(error_of(R"({"type":"image"})") == "image block has no source");
  CHECK(error_of(R"({"type":"text","text":"a","visibility":1})") ==
        "visibility: expected a string, got int64");
  CHECK(error_of(R"(["not","an","object"])") == "expected an object, got array");
}

TEST_CASE("a tool_call without input gets an empty input object") {
  const ContentBlock block = from_json<ContentBlock>(json::parse(R"({"type":"tool_call","id":"c","name":"n"})"));
  CHECK(block_as<ToolCallBlock>(block)->input.empty());
  CHECK(to_json(block).at("input").as_object().empty());
}

TEST_CASE("ChatResponse-style tool calls parse with or without a type") {
  const ToolCallBlock call = from_json<ToolCallBlock>(json::parse(R"({"id":"c","name":"n","input":{"a":1}})"));
  CHECK(call.input.at("a") == 1);
  CHECK_THROWS_WITH_AS(from_json<ToolCallBlock>(json::parse(R"({"type":"text","id":"c","name":"n"})")),
                       "type: expected a tool_call block", ModelError);
}

TEST_CASE("blocks parsed from a scratch buffer do not depend on it") {
  ContentBlock block;
  {
    unsigned char buffer[2048];
    json::monotonic_resource scratch(buffer, sizeof buffer);
    const json::value parsed = json::parse(
        R"({"type":"x-custom","payload":{"deep":["value"]}})", &scratch);
    block = from_json<ContentBlock>(parsed);
  }
  // The buffer is gone; the block must still be readable and serialisable.
  CHECK(json::serialize(to_json(block)) == R"({"type":"x-custom","payload":{"deep":["value"]}})");
}
