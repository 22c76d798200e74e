// RequestReader (libs/provider-kit): the request every provider reads, with the messages seen
// before taken from a cache. Whatever the text, the result must be exactly what the whole
// parse gives: the same request, or the same error.
#include "amplifier/provider/request_reader.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace json = boost::json;
using amplifier::ChatRequest;
using amplifier::provider::LentRequest;
using amplifier::provider::RequestReader;
using amplifier::provider::split_messages;

ChatRequest read_whole(std::string_view text) {
  return amplifier::from_json<ChatRequest>(amplifier::parse_json(text));
}

std::string text_of(const ChatRequest &request) {
  return json::serialize(amplifier::to_json(request));
}

// The reader's answer for `text` equals the whole parse's: the request, or the error message.
void check_same(RequestReader &reader, const std::string &text) {
  std::string expected, got;
  try {
    expected = text_of(read_whole(text));
  } catch (const amplifier::ModelError &e) {
    expected = std::string("error: ") + e.what();
  }
  try {
    got = text_of(*reader.lend(text));
  } catch (const amplifier::ModelError &e) {
    got = std::string("error: ") + e.what();
  }
  CHECK_MESSAGE(got == expected, text);
}

std::string tool_call_message(int i) {
  const std::string id = "call_" + std::to_string(i);
  return R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"c2ln+/=="},)"
         R"({"type":"tool_call","id":")" + id + R"(","name":"read","input":{"path":"a[1].txt"}}]})";
}

// A conversation of `turns` tool turns, as an agent loop sends it, with awkward text.
std::vector<std::string> conversation(int turns) {
  std::vector<std::string> messages{
      R"({"role":"system","content":"be brief [not an array] {nor an object} \"quoted\""})",
      R"({"role":"user","content":"r\u00e9sum\u00e9 \\ and ] and } and \" ","metadata":{"k":[1,{"a":"]"}]}})"};
  for (int i = 0; i < turns; ++i) {
    messages.push_back(tool_call_message(i));
    messages.push_back(R"({"role":"tool","tool_call_id":"call_)" + std::to_string(i) +
                       R"(","content":"line 1\nline \"2\" ]} and a third line, long enough to live on the heap"})");
  }
  return messages;
}

std::string request_of(const std::vector<std::string> &messages, const std::string &before = "",
                       const std::string &after = "") {
  std::string text = R"({"model":"m",)" + before + R"("messages":[)";
  for (std::size_t i = 0; i < messages.size(); ++i) text += (i ? ", " : "") + messages[i];
  return text + "]" + after + R"(,"tools":[{"name":"read","parameters":{"type":"object"}}]})";
}

}  // namespace

TEST_CASE("request reader: a growing conversation reads like the whole parse, old messages from the cache") {
  RequestReader reader;
  std::size_t sent = 0;
  for (int turn = 0; turn < 6; ++turn) {
    const auto messages = conversation(turn);
    check_same(reader, request_of(messages));
    sent += messages.size();
  }
  const auto counts = reader.counts();
  // Every turn adds two messages; the rest are the previous turn's.
  CHECK(counts.parsed == 2 + 2 * 5);
  CHECK(counts.reused == sent - counts.parsed);
}

TEST_CASE("request reader: a conversation that changes in the middle, or another in between") {
  RequestReader reader;
  const std::string a = R"({"role":"user","content":"abc"})";
  const std::string b = R"({"role":"assistant","content":"def"})";
  const std::string c = R"({"role":"user","content":"ghi"})";
  check_same(reader, request_of({a, b}));
  check_same(reader, request_of({a, b, c}));
  CHECK(reader.counts().reused == 2);  // the last one too: it ended at its brace
  // A message that only grew (its old text is a prefix of the new one) is parsed again.
  check_same(reader, request_of({a, R"({"role":"assistant","content":"defg"})", c}));
  CHECK(reader.counts().reused == 3);
  // Compacted: the first message differs, nothing is reused.
  check_same(reader, request_of({c, b}));
  CHECK(reader.counts().reused == 3);
  // Two conversations in turn, and an empty one.
  check_same(reader, request_of({a, b, c}));
  check_same(reader, request_of({b}));
  check_same(reader, request_of({}));
  check_same(reader, request_of({a, b, c, a}));
  check_same(reader, request_of({a, b, c, a, a}));
  CHECK(reader.counts().reused == 3 + 4);
  check_same(reader, request_of({a, b, c, a, a}, R"("temperature":1,)"));  // shares less
  CHECK(reader.counts().reused == 3 + 4);
  // The same text twice in one request.
  check_same(reader, request_of({a, a, a}));
}

TEST_CASE("request reader: a resumed split still checks the rest") {
  RequestReader reader;
  const std::string a = R"({"role":"user","content":"abc"})";
  check_same(reader, R"({"messages":[)" + a + "]}");
  // The first message is reused; what follows it is broken in each way.
  for (const std::string tail :
       {R"(,]})", R"(, {"role":"user","content":"x"}})", R"(] trailing)", R"(,"messages":[]})",
        R"(,{"role":"nobody","content":"x"}]})", R"(,{"role":"user","content":"x"}],"stop":5})",
        R"(,{"role":"user","content":"unterminated]})"})
    check_same(reader, R"({"messages":[)" + a + tail);
  check_same(reader, R"({"messages":[)" + a + R"(,{"role":"user","content":"fine"}]})");
  CHECK(reader.counts().reused == 1);  // only reads that succeed are counted
}

TEST_CASE("request reader: whitespace, key order and fields after the messages") {
  RequestReader reader;
  const auto messages = conversation(2);
  check_same(reader, "  \n" + request_of(messages, R"("temperature":0.5,)", R"(,"stop":["]"])") + "\n ");
  check_same(reader, R"({ "messages" : [ {"role":"user","content":"x"} ,
    {"role":"assistant","content":"y"} ] , "model":"m", "max_output_tokens": 12, "extra_field": {"a":[true,false,null,-1.5e3]} })");
  CHECK(reader.counts().reused == 0);
}

TEST_CASE("request reader: broken or odd requests give the whole parse's error") {
  RequestReader reader;
  const auto good = conversation(1);
  const std::vector<std::string> texts{
      "",
      "[]",
      "{}",
      R"({"model":"m"})",
      R"({"messages":{}})",
      R"({"messages":"no"})",
      R"({"messages":[{"role":"user","content":"x"},]})",
      R"({"messages":[{"role":"user","content":"x"} {"role":"user","content":"y"}]})",
      R"({"messages":[{"role":"nobody","content":"x"}]})",
      R"({"messages":[{"role":"user","content":"x"}],"temperature":"hot"})",
      R"({"messages":[{"role":"user","content":"x"}]} trailing)",
      R"({"messages":[{"role":"user","content":"x"}],})",
      R"({"messages":[{"role":"user","content":"unterminated}]})",
      R"({"messages":[{"role":"user","content":"x"}]],"model":"m"})",
      R"({"messages":[{"role":"user","content":"x"]}]})",
      R"({"messages":[1, {"role":"user","content":"x"}]})",
      R"({"messages":[{"role":"user","content":"bad \q escape"}]})",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"raw \x01 control\"}]}",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"bad utf8 \xc3\x28\"}]}",
      R"({"messages":[{"role":"user","content":"x"}] /* comment */})",
      // Two message arrays, and one spelled with an escape: the whole parse decides.
      R"({"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]})",
      R"({"mess\u0061ges":[{"role":"user","content":"a"}]})",
      R"({"messages":[{"role":"user","content":"a"}],"mess\u0061ges":[{"role":"user","content":"b"}]})",
      request_of(good, R"("tools":5,)"),
  };
  // Nested near the parser's depth limit: fine alone, too deep in the request (or fine in both).
  std::vector<std::string> deep;
  for (int levels : {20, 26, 29, 30, 31, 32}) {
    const std::string nest = std::string(levels, '[') + std::string(levels, ']');
    deep.push_back(R"({"messages":[{"role":"user","content":"x","metadata":{"a":)" + nest + "}}]}");
    deep.push_back(R"({"messages":[{"role":"assistant","content":[{"type":"tool_call","id":"c","name":"n","input":{"a":)" +
                   nest + "}}]}]}");
  }
  for (const auto &text : deep) check_same(reader, text);
  for (const auto &text : texts) check_same(reader, text);
  // A message that was fine before is still fine next to a broken one, and the error still
  // names the broken one's index.
  check_same(reader, request_of(good));
  auto broken = good;
  broken.push_back(R"({"role":"user","content":7})");
  check_same(reader, request_of(broken));
}

TEST_CASE("request reader: the splitter finds each message's exact text") {
  const auto spans = split_messages(R"({"a":"[\"]", "messages" :[ {"x":"}\\"} ,[1,[2]],"s", 3 ],"b":{}})");
  REQUIRE(spans);
  REQUIRE(spans->elements.size() == 4);
  CHECK(spans->elements[0] == R"({"x":"}\\"})");
  CHECK(spans->elements[1] == "[1,[2]]");
  CHECK(spans->elements[2] == R"("s")");
  CHECK(spans->elements[3] == "3");
  CHECK_FALSE(split_messages(R"({"messages":[1],"messages":[2]})"));
  CHECK_FALSE(split_messages(R"({"model":"m"})"));
  CHECK_FALSE(split_messages(R"({"messages":[1]} x)"));
}

TEST_CASE("request reader: the splitter resumes after the elements of the shared beginning") {
  const std::string before = R"({"messages":[{"a":1},{"b":"\\"},{"c":3}],"x":1})";
  const auto known = split_messages(before);
  REQUIRE(known);
  CHECK(known->reused == 0);
  const std::string after = R"({"messages":[{"a":1},{"b":"\\"},{"c":33},{"d":4}],"x":1})";
  const auto spans = split_messages(after, &*known, before);
  REQUIRE(spans);
  CHECK(spans->reused == 2);
  REQUIRE(spans->elements.size() == 4);
  CHECK(spans->elements[1] == R"({"b":"\\"})");
  CHECK(spans->elements[2] == R"({"c":33})");
  CHECK(spans->elements[1].data() == after.data() + 21);  // a view into the new text
}

TEST_CASE("request reader: two threads reading two conversations in turn on one instance") {
  RequestReader reader;
  // Two conversations, each growing in turn order: a read reuses what the read before it on
  // the instance had, whichever thread made it, or reads the old way while the other thread's
  // request is on loan. How often each happens depends on the scheduling; every result must be
  // right.
  std::vector<std::string> texts, expected;
  for (int turn = 0; turn < 8; ++turn) texts.push_back(request_of(conversation(turn)));
  for (int turn = 0; turn < 8; ++turn)
    texts.push_back(request_of(conversation(turn), R"("temperature":0.25,)"));
  for (const auto &text : texts) expected.push_back(text_of(read_whole(text)));
  std::atomic<int> wrong{0};
  auto work = [&](int offset) {
    for (int round = 0; round < 40; ++round)
      for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::size_t k = (i + static_cast<std::size_t>(offset)) % texts.size();
        if (text_of(*reader.lend(texts[k])) != expected[k]) ++wrong;
      }
  };
  std::thread other(work, 7);
  work(0);
  other.join();
  CHECK(wrong == 0);
}

TEST_CASE("request reader: messages are lent, not copied, and come back when the request ends") {
  RequestReader reader;
  const auto first = conversation(2), second = conversation(3);
  const std::string text1 = request_of(first), text2 = request_of(second);
  // A tool result's text (longer than a short string's inline buffer): the same bytes in
  // memory in the next request, moved, not copied.
  auto tool_text = [](const ChatRequest &request) {
    return std::get<std::string>(request.messages[3].content).data();
  };
  const char *lent_text = nullptr;
  {
    const LentRequest request = reader.lend(text1);
    REQUIRE(request);
    lent_text = tool_text(*request);
  }
  {
    const LentRequest request = reader.lend(text2);
    CHECK(tool_text(*request) == lent_text);
    CHECK(text_of(*request) == text_of(read_whole(text2)));
    CHECK(reader.counts().reused == first.size());
    // While it is out, another request on the instance is read the old way, and right.
    const auto before = reader.counts();
    CHECK(text_of(*reader.lend(text2)) == text_of(read_whole(text2)));
    CHECK(reader.counts().reused == before.reused);
    CHECK(reader.counts().parsed == before.parsed + second.size());
  }
  // Back: the next request takes them again.
  CHECK(text_of(*reader.lend(request_of(conversation(4)))) ==
        text_of(read_whole(request_of(conversation(4)))));
  CHECK(reader.counts().reused == first.size() + second.size());
  // A request kept beyond the scope is a copy of its own (as the Responses provider keeps it).
  std::optional<ChatRequest> kept;
  {
    const LentRequest request = reader.lend(request_of(conversation(5)));
    kept = *request;
  }
  CHECK(text_of(*kept) == text_of(read_whole(request_of(conversation(5)))));
  CHECK(text_of(*reader.lend(request_of(conversation(5)))) == text_of(*kept));
}
