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

// Quotes, backslashes, every control character, UTF-8 (and, unless asked for valid UTF-8, bytes
// that are not), a look-alike of the marker without the process's nonce; long enough to be
// spliced.
std::string awkward_text(bool valid_utf8 = false) {
  std::string text = "plain \"quoted\" back\\slash / ünïcödé 🙂 ";
  if (!valid_utf8) text += "\xff\xfe\xc0\x80 bytes ";
  for (int c = 0; c < 0x20; ++c) text.push_back(static_cast<char>(c));
  text += "\x01" "amp-splice-0000000000000000-0\x01";
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

ChatResponse response_with_everything(bool valid_utf8 = false) {
  ChatResponse response;
  response.content.push_back(ThinkingBlock{awkward_text(valid_utf8), std::string("sig/+=="), std::nullopt,
                                           json::object{{"reasoning_field", "x\ny"}}});
  response.content.push_back(RedactedThinkingBlock{"opaque\"data", std::nullopt, {}});
  response.content.push_back(TextBlock{awkward_text(valid_utf8) + "!", std::string("user"),
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
  // And what is written reads back as the same response (Boost.JSON reads valid UTF-8 only).
  const ChatResponse readable = response_with_everything(/*valid_utf8=*/true);
  CHECK(json::parse(to_json_text(readable)) == json::value(to_json(readable)));
}

TEST_CASE("the long strings are spliced, not serialised: the slow path is not taken") {
  const ChatResponse response = response_with_everything();
  for (const ContentBlock &block : response.content) {
    SplicedJson spliced;
    const ContentBlock shell = detail::shell_of(block, spliced);
    const std::string out = spliced.render(to_json(shell), [] {
      FAIL("the slow path was taken");
      return std::string();
    });
    CHECK(out == json::serialize(to_json(block)));
  }
}

TEST_CASE("a dozen long blocks: markers of two digits are found, and the slow path is not taken") {
  ChatResponse response;
  for (int i = 0; i < 12; ++i)
    response.content.push_back(TextBlock{std::to_string(i) + awkward_text(), std::nullopt, {}});
  SplicedJson spliced;
  ChatResponse shell;
  for (const ContentBlock &block : response.content) {
    shell.content.push_back(detail::shell_of(block, spliced));
    CHECK(std::get<TextBlock>(shell.content.back()).text.size() < 100);  // a marker stands in
  }
  const std::string out = spliced.render(to_json(shell), [] {
    FAIL("the slow path was taken");
    return std::string();
  });
  CHECK(out == json::serialize(to_json(response)));
}

TEST_CASE("strings of 4 KiB and more are spliced, shorter ones stay in the shell") {
  SplicedJson spliced;
  const std::string below(SplicedJson::kMinSplicedBytes - 1, 'b');
  const std::string at(SplicedJson::kMinSplicedBytes, 'a');
  CHECK(spliced.stand_in(below) == below);
  CHECK(spliced.stand_in(at) != at);
}

TEST_CASE("many short blocks stay in the shell and come out the same") {
  ChatResponse response;
  for (int i = 0; i < 5000; ++i)
    response.content.push_back(TextBlock{"block " + std::to_string(i) + "\n", std::nullopt, {}});
  response.content.push_back(TextBlock{awkward_text(), std::nullopt, {}});
  CHECK(to_json_text(response) == json::serialize(to_json(response)));
}

TEST_CASE("a marker found twice takes the slow path, with the same result") {
  SplicedJson spliced;
  const std::string text(SplicedJson::kMinSplicedBytes, 'x');
  const std::string marker = spliced.stand_in(text);
  CHECK(marker != text);
  // The shell holds the marker twice: a vendor string that somehow carried it.
  const json::object shell{{"a", marker}, {"b", marker}};
  bool slow_used = false;
  const std::string out = spliced.render(shell, [&] {
    slow_used = true;
    return std::string("slow");
  });
  CHECK(slow_used);
  CHECK(out == "slow");

  // Marker 0 twice and marker 1 not at all: as many markers as texts, still the slow path.
  SplicedJson two;
  const std::string first = two.stand_in(text);
  (void)two.stand_in(text);
  CHECK(two.render(json::object{{"a", first}, {"b", first}}, [] { return std::string("slow"); }) ==
        "slow");

  SplicedJson missing;
  (void)missing.stand_in(text);  // a marker the shell never got
  CHECK(missing.render(json::object{{"a", "x"}}, [] { return std::string("slow"); }) == "slow");

  SplicedJson once;
  const std::string single = once.stand_in(text);
  CHECK(once.render(json::object{{"a", single}, {"b", "x"}}, [] { return std::string("slow"); }) ==
        R"({"a":")" + text + R"(","b":"x"})");
  SplicedJson short_one;
  CHECK(short_one.stand_in("short") == "short");
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
