// JSON text written once (amplifier/json_text.hpp): byte for byte what serialize(to_json(x))
// writes, for every kind of string a vendor can send, and the slow path when a marker is
// found other than exactly once.
#include <amplifier/json_text.hpp>
#include <amplifier/stream.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

namespace json = boost::json;
using namespace amplifier;

namespace {

// Quotes, backslashes, every control character, UTF-8 (valid and not), and a look-alike of
// the marker without the process's nonce.
std::string awkward_text() {
  std::string text = "plain \"quoted\" back\\slash / ünïcödé 🙂 \xff\xfe bytes ";
  for (int c = 0; c < 0x20; ++c) text.push_back(static_cast<char>(c));
  text += "\x01" "amp-splice-0000000000000000-0\x01";
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

ChatResponse response_with_everything() {
  ChatResponse response;
  response.content.push_back(ThinkingBlock{awkward_text(), std::string("sig/+=="), std::nullopt,
                                           json::object{{"reasoning_field", "x\ny"}}});
  response.content.push_back(RedactedThinkingBlock{"opaque\"data", std::nullopt, {}});
  response.content.push_back(TextBlock{awkward_text() + "!", std::string("user"),
                                       json::object{{"citations", json::array{1, "two"}}}});
  response.content.push_back(
      ToolCallBlock{"toolu_1", "read_file", json::object{{"path", "a\"b"}}, std::nullopt, {}});
  response.tool_calls = collect_tool_calls(response.content);
  response.usage = Usage{};
  response.usage->input_tokens = 12;
  response.finish_reason = "tool_use";
  response.metadata = json::object{{"provider", "anthropic"}, {"note", "\"text\":\"\""}};
  response.extra = json::object{{"vendor_field", json::array{nullptr, true}}};
  return response;
}

}  // namespace

TEST_CASE("quoted_size counts what append_quoted writes") {
  for (const std::string &text : {std::string(), std::string("a\"\\\n\x01"), awkward_text()})
    CHECK(quoted_size(text) == json::serialize(json::value(text)).size());
}

TEST_CASE("a block's text, a response's text and a block end match the serializer byte for byte") {
  const ChatResponse response = response_with_everything();
  for (const ContentBlock &block : response.content) {
    CHECK(to_json_text(block) == json::serialize(to_json(block)));
    CHECK(stream::block_end_text(3, block) == json::serialize(stream::block_end(3, block)));
  }
  CHECK(to_json_text(response) == json::serialize(to_json(response)));
  // And what is written reads back as the same response.
  CHECK(json::parse(to_json_text(response)) == json::value(to_json(response)));
}

TEST_CASE("a marker found twice takes the slow path, with the same result") {
  SplicedJson spliced;
  const std::string text = "the long text";
  const std::string marker = spliced.marker_for(text);
  // The shell holds the marker twice: a vendor string that somehow carried it.
  const json::object shell{{"a", marker}, {"b", marker}};
  bool slow_used = false;
  const std::string out = spliced.render(shell, [&] {
    slow_used = true;
    return std::string("slow");
  });
  CHECK(slow_used);
  CHECK(out == "slow");

  SplicedJson once;
  const std::string single = once.marker_for(text);
  CHECK(once.render(json::object{{"a", single}, {"b", "x"}}, [] { return std::string("slow"); }) ==
        R"({"a":"the long text","b":"x"})");
}

TEST_CASE("take_text moves one text block's string and joins several") {
  ChatResponse one;
  one.content.push_back(TextBlock{std::string(100000, 'a'), std::nullopt, {}});
  const char *before = std::get<TextBlock>(one.content[0]).text.data();
  const std::string taken = one.take_text();
  CHECK(taken.size() == 100000);
  CHECK(taken.data() == before);  // moved, not copied

  ChatResponse several;
  several.content.push_back(TextBlock{"ab", std::nullopt, {}});
  several.content.push_back(ToolCallBlock{"id", "t", json::object{}, std::nullopt, {}});
  several.content.push_back(TextBlock{"cd", std::nullopt, {}});
  CHECK(several.text() == "abcd");
  CHECK(several.take_text() == "abcd");
}
