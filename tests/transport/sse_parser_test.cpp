// SseParser against the WHATWG rules and against every recorded vendor stream, whole and cut
// into every chunk size from 1 to 16 bytes.
#include "test_support.hpp"

#include <boost/json/parse.hpp>

namespace amplifier::transport {
namespace {

struct Parsed {
  std::vector<std::tuple<std::string, std::string, std::string>> events;  // type, data, id
  SseStreamEnd end;
};

Parsed parse_in_chunks(std::string_view stream, std::size_t chunk_size) {
  Parsed parsed;
  SseParser parser([&](const SseEvent &event) {
    parsed.events.emplace_back(std::string(event.type), std::string(event.data), std::string(event.id));
  });
  for (std::size_t at = 0; at < stream.size(); at += chunk_size)
    parser.feed(stream.substr(at, chunk_size));
  parsed.end = parser.finish();
  return parsed;
}

Parsed parse_whole(std::string_view stream) { return parse_in_chunks(stream, stream.size() + 1); }

std::vector<std::string> data_of(const Parsed &parsed) {
  std::vector<std::string> data;
  for (const auto &event : parsed.events) data.push_back(std::get<1>(event));
  return data;
}

// A deliberately naive, non-incremental reading of the standard, to check the incremental
// parser against: normalise line ends, split lines, apply the field rules.
Parsed reference_parse(std::string stream) {
  std::string normalised;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    if (stream[i] == '\r') {
      normalised += '\n';
      if (i + 1 < stream.size() && stream[i + 1] == '\n') ++i;
    } else {
      normalised += stream[i];
    }
  }
  Parsed parsed;
  std::string data, type, id;
  bool any_data = false;
  std::size_t start = 0;
  while (true) {
    const std::size_t newline = normalised.find('\n', start);
    if (newline == std::string::npos) break;  // an unterminated last line is not a line
    const std::string line = normalised.substr(start, newline - start);
    start = newline + 1;
    if (line.empty()) {
      if (any_data) parsed.events.emplace_back(type.empty() ? "message" : type, data, id);
      data.clear();
      type.clear();
      any_data = false;
      continue;
    }
    if (line[0] == ':') continue;
    const auto colon = line.find(':');
    const std::string name = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (name == "data") {
      if (any_data) data += '\n';
      data += value;
      any_data = true;
    } else if (name == "event") {
      type = value;
    } else if (name == "id") {
      id = value;
    }
  }
  return parsed;
}

TEST_CASE("sse: every recorded vendor stream parses the same whole and in chunks of 1..16 bytes") {
  const auto fixtures = testing::vendor_fixtures(".sse");
  REQUIRE(fixtures.size() >= 10);
  for (const auto &path : fixtures) {
    CAPTURE(path.filename().string());
    const std::string stream = testing::read_file(path);
    const Parsed whole = parse_whole(stream);
    const Parsed reference = reference_parse(stream);
    CHECK(whole.events == reference.events);
    for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
      CAPTURE(chunk);
      const Parsed chunked = parse_in_chunks(stream, chunk);
      CHECK(chunked.events == whole.events);
      CHECK(chunked.end.truncated == whole.end.truncated);
      CHECK(chunked.end.unterminated_data == whole.end.unterminated_data);
    }
  }
}

TEST_CASE("sse: Anthropic streams name each event after the type in its JSON") {
  for (const auto &path : testing::vendor_fixtures(".sse")) {
    if (!path.filename().string().starts_with("anthropic_")) continue;
    CAPTURE(path.filename().string());
    const Parsed parsed = parse_in_chunks(testing::read_file(path), 7);
    REQUIRE(!parsed.events.empty());
    CHECK_FALSE(parsed.end.truncated);
    for (const auto &[type, data, id] : parsed.events) {
      const auto json = boost::json::parse(data);
      CHECK(json.at("type").as_string() == type);
    }
  }
}

TEST_CASE("sse: recorded text stream yields the documented event sequence") {
  const Parsed parsed =
      parse_in_chunks(testing::read_file(testing::vendor_fixture_dir() / "anthropic_stream_text_recorded.sse"), 3);
  REQUIRE(parsed.events.size() >= 5);
  CHECK(std::get<0>(parsed.events.front()) == "message_start");
  CHECK(std::get<0>(parsed.events.back()) == "message_stop");
}

TEST_CASE("sse: OpenAI chat stream ends with [DONE]; Gemini CRLF streams parse") {
  const Parsed openai = parse_in_chunks(
      testing::read_file(testing::vendor_fixture_dir() / "openai_chat_stream_tool_call_usage_recorded.sse"), 5);
  REQUIRE(!openai.events.empty());
  CHECK(std::get<1>(openai.events.back()) == "[DONE]");
  CHECK(std::get<0>(openai.events.front()) == "message");

  const Parsed gemini = parse_in_chunks(
      testing::read_file(testing::vendor_fixture_dir() / "gemini_stream_text_recorded_firebase.sse"), 1);
  REQUIRE(!gemini.events.empty());
  for (const auto &event : gemini.events) CHECK(boost::json::parse(std::get<1>(event)).is_object());
  CHECK_FALSE(gemini.end.truncated);
}

TEST_CASE("sse: a stream ending without the dispatching blank line reports its last event") {
  // The recorded Gemini prompt-blocked stream ends with one CRLF and no blank line.
  const std::string stream = testing::read_file(
      testing::vendor_fixture_dir() / "gemini_stream_prompt_blocked_safety_recorded_firebase.sse");
  for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
    const Parsed parsed = parse_in_chunks(stream, chunk);
    CHECK(parsed.events.empty());
    CHECK(parsed.end.truncated);
    REQUIRE(parsed.end.unterminated_data.has_value());
    CHECK(boost::json::parse(*parsed.end.unterminated_data).as_object().contains("promptFeedback"));
  }
}

TEST_CASE("sse: multi-line data is joined with LF and one leading space is stripped") {
  const Parsed parsed = parse_whole("data: first\ndata:second\ndata:  third\n\n");
  REQUIRE(parsed.events.size() == 1);
  CHECK(std::get<1>(parsed.events[0]) == "first\nsecond\n third");
}

TEST_CASE("sse: comments are ignored and a field without a colon has an empty value") {
  const Parsed parsed = parse_whole(": keep-alive\ndata\ndata\n\n:another\n\n");
  REQUIRE(parsed.events.size() == 1);
  CHECK(std::get<1>(parsed.events[0]) == "\n");
}

TEST_CASE("sse: CR, LF and CRLF all end lines, mixed in one stream") {
  const Parsed parsed = parse_whole("data: a\r\rdata: b\n\ndata: c\r\n\r\nevent: x\rdata: d\r\n\n");
  CHECK(data_of(parsed) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(std::get<0>(parsed.events[3]) == "x");
}

TEST_CASE("sse: a CR ending one chunk and an LF starting the next are one line end") {
  Parsed parsed;
  SseParser parser([&](const SseEvent &event) {
    parsed.events.emplace_back(std::string(event.type), std::string(event.data), "");
  });
  parser.feed("data: a\r");
  parser.feed("\ndata: b\r");
  parser.feed("\n\r");
  parser.feed("\n");
  REQUIRE(parsed.events.size() == 1);  // two line ends there would have dispatched "a" alone
  CHECK(std::get<1>(parsed.events[0]) == "a\nb");
  CHECK_FALSE(parser.finish().truncated);
}

TEST_CASE("sse: fields and UTF-8 characters split at every byte boundary") {
  const std::string stream = "event: gr\xC3\xBC\xC3\x9F" "e\ndata: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\nid: 7\n\n";
  const Parsed expected = parse_whole(stream);
  REQUIRE(expected.events.size() == 1);
  CHECK(std::get<0>(expected.events[0]) == "gr\xC3\xBC\xC3\x9F" "e");
  CHECK(std::get<1>(expected.events[0]) == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  for (std::size_t cut = 1; cut < stream.size(); ++cut) {
    Parsed parsed;
    SseParser parser([&](const SseEvent &event) {
      parsed.events.emplace_back(std::string(event.type), std::string(event.data), std::string(event.id));
    });
    parser.feed(std::string_view(stream).substr(0, cut));
    parser.feed(std::string_view(stream).substr(cut));
    CHECK(parsed.events == expected.events);
  }
}

TEST_CASE("sse: an event without data is not dispatched and its type does not leak") {
  const Parsed parsed = parse_whole("event: ping\n\ndata: x\n\nevent: only\nid: 1\n\n");
  REQUIRE(parsed.events.size() == 1);
  CHECK(std::get<0>(parsed.events[0]) == "message");
  CHECK(std::get<1>(parsed.events[0]) == "x");
}

TEST_CASE("sse: the event type resets after each dispatch") {
  const Parsed parsed = parse_whole("event: a\ndata: 1\n\ndata: 2\n\n");
  REQUIRE(parsed.events.size() == 2);
  CHECK(std::get<0>(parsed.events[0]) == "a");
  CHECK(std::get<0>(parsed.events[1]) == "message");
}

TEST_CASE("sse: id persists across events, an id containing NUL is ignored") {
  const std::string stream = "id: 1\ndata: a\n\ndata: b\n\nid: 2" + std::string(1, '\0') +
                             "x\ndata: c\n\nid\ndata: d\n\n";
  const Parsed parsed = parse_whole(stream);
  REQUIRE(parsed.events.size() == 4);
  CHECK(std::get<2>(parsed.events[0]) == "1");
  CHECK(std::get<2>(parsed.events[1]) == "1");
  CHECK(std::get<2>(parsed.events[2]) == "1");
  CHECK(std::get<2>(parsed.events[3]) == "");
}

TEST_CASE("sse: retry takes ASCII digits only; unknown fields are ignored") {
  SseParser parser([](const SseEvent &) {});
  parser.feed("retry: 3000\n\n");
  CHECK(parser.reconnection_time_ms() == 3000u);
  parser.feed("retry: 12a\nretry: -5\nretry:\n\n");
  CHECK(parser.reconnection_time_ms() == 3000u);
  std::vector<std::string> data;
  SseParser ignoring([&](const SseEvent &event) { data.emplace_back(event.data); });
  ignoring.feed("foo: bar\nData: no\ndata: yes\n\n");
  CHECK(data == std::vector<std::string>{"yes"});
}

TEST_CASE("sse: a retry value too large for 64 bits is ignored and the stream goes on") {
  std::vector<std::string> data;
  SseParser parser([&](const SseEvent &event) { data.emplace_back(event.data); });
  parser.feed("retry: 3000\n\n");
  CHECK_NOTHROW(parser.feed("retry: 123456789012345678901\ndata: after\n\n"));
  CHECK(parser.reconnection_time_ms() == 3000u);
  CHECK_NOTHROW(parser.feed("retry: 18446744073709551615\n\n"));
  CHECK(parser.reconnection_time_ms() == 18446744073709551615ull);
  CHECK_NOTHROW(parser.feed("retry: 18446744073709551616\ndata: last\n\n"));
  CHECK(parser.reconnection_time_ms() == 18446744073709551615ull);
  CHECK(data == std::vector<std::string>{"after", "last"});
}

TEST_CASE("sse: a UTF-8 BOM is stripped at the start only, even split across chunks") {
  const std::string bom = "\xEF\xBB\xBF";
  for (std::size_t chunk = 1; chunk <= 4; ++chunk) {
    const Parsed parsed = parse_in_chunks(bom + "data: x\n\n", chunk);
    CHECK(data_of(parsed) == std::vector<std::string>{"x"});
  }
  const Parsed middle = parse_whole("data: x\n\n" + bom + "data: y\n\n");
  REQUIRE(middle.events.size() == 1);  // a BOM later is part of a field name: ignored field
  const Parsed not_a_bom = parse_in_chunks("\xEF" "data: z\n\n", 1);
  CHECK(not_a_bom.events.empty());  // "\xEF" "data" is an unknown field, not a BOM
}

TEST_CASE("sse: a final unterminated event is discarded and reported") {
  const Parsed cut_line = parse_in_chunks("data: a\n\ndata: partial", 4);
  CHECK(data_of(cut_line) == std::vector<std::string>{"a"});
  CHECK(cut_line.end.truncated);
  CHECK(cut_line.end.unterminated_data == std::optional<std::string>("partial"));

  const Parsed no_blank = parse_whole("event: message_stop\ndata: {}\n");
  CHECK(no_blank.events.empty());
  CHECK(no_blank.end.truncated);
  CHECK(no_blank.end.unterminated_type == std::optional<std::string>("message_stop"));

  SseParser parser([](const SseEvent &) {});
  parser.feed("retry: 10\n\nretry: 7");
  CHECK(parser.finish().truncated);
  CHECK(parser.reconnection_time_ms() == 10u);  // an incomplete line is not applied

  const Parsed trailing_comment = parse_whole("data: a\n\n: ping");
  CHECK_FALSE(trailing_comment.end.truncated);
  const Parsed complete = parse_whole("data: a\n\n");
  CHECK_FALSE(complete.end.truncated);
  CHECK_FALSE(complete.end.unterminated_data.has_value());
}

TEST_CASE("sse: the parser is reusable after finish") {
  std::vector<std::string> data;
  SseParser parser([&](const SseEvent &event) { data.emplace_back(event.data); });
  parser.feed("data: one\n\ndata: cut");
  CHECK(parser.finish().truncated);
  parser.feed("data: two\n\n");
  CHECK_FALSE(parser.finish().truncated);
  CHECK(data == std::vector<std::string>{"one", "two"});
}

}  // namespace
}  // namespace amplifier::transport
