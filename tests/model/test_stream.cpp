// Stream event builders and the ResponseAssembler.
#include <amplifier/stream.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

namespace json = boost::json;
using namespace amplifier;

namespace {

std::string feed_error(ResponseAssembler &assembler, const json::object &event) {
  try {
    assembler.feed(event);
  } catch (const ModelError &error) {
    return error.what();
  }
  return "no error";
}

bool contains(const std::string &text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("event builders produce the ABI's shapes") {
  CHECK(json::value(stream::text_delta(3, "hi")) ==
        json::parse(R"({"type":"content_block_delta","index":3,"delta":{"type":"text","text":"hi"}})"));
  CHECK(json::value(stream::thinking_delta(0, "t")) ==
        json::parse(R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking","thinking":"t"}})"));
  CHECK(json::value(stream::signature_delta(0, "s")) ==
        json::parse(R"({"type":"content_block_delta","index":0,"delta":{"type":"signature","signature":"s"}})"));
  CHECK(json::value(stream::tool_input_delta(2, R"({"a":)")) ==
        json::parse(R"({"type":"content_block_delta","index":2,"delta":{"type":"tool_input","partial_json":"{\"a\":"}})"));
  CHECK(json::value(stream::redacted_thinking_delta(1, "d")) ==
        json::parse(R"({"type":"content_block_delta","index":1,"delta":{"type":"redacted_thinking","data":"d"}})"));
  CHECK(json::value(stream::reasoning_delta(4, "step", nullptr)) ==
        json::parse(R"({"type":"content_block_delta","index":4,"delta":{"type":"reasoning","content":"step"}})"));
  CHECK(json::value(stream::text_start(1)) ==
        json::parse(R"({"type":"content_block_start","index":1,"block":{"type":"text"}})"));
  CHECK(json::value(stream::thinking_start(0)) ==
        json::parse(R"({"type":"content_block_start","index":0,"block":{"type":"thinking"}})"));
  CHECK(json::value(stream::tool_call_start(2, "call_1", "ls")) ==
        json::parse(R"({"type":"content_block_start","index":2,"block":{"type":"tool_call","id":"call_1","name":"ls"}})"));
  CHECK(json::value(stream::block_end(5)) == json::parse(R"({"type":"content_block_end","index":5})"));
  CHECK(json::value(stream::block_end(5, TextBlock{"done", {}, {}})) ==
        json::parse(R"({"type":"content_block_end","index":5,"block":{"type":"text","text":"done"}})"));
  CHECK(json::value(stream::usage(json::object{{"output_tokens", 7}})) ==
        json::parse(R"({"type":"usage","usage":{"output_tokens":7}})"));
  CHECK(json::value(stream::usage(Usage{1, 2, 3, {}, {}, {}, {}})) ==
        json::parse(R"({"type":"usage","usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}})"));
}

TEST_CASE("text, thinking with signature and a tool call split across many deltas") {
  ResponseAssembler assembler;
  // Anthropic opens thinking blocks with empty thinking and signature fields.
  assembler.feed(stream::block_start(0, json::object{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}));
  assembler.feed(stream::thinking_delta(0, "Let me "));
  assembler.feed(stream::thinking_delta(0, ""));
  assembler.feed(stream::thinking_delta(0, "think."));
  assembler.feed(stream::signature_delta(0, "EqQBCgIYAh+/"));
  assembler.feed(stream::signature_delta(0, "Ig=="));
  const ContentBlock *thinking_end = assembler.feed(stream::block_end(0));
  REQUIRE(thinking_end != nullptr);
  CHECK(block_as<ThinkingBlock>(*thinking_end)->signature == "EqQBCgIYAh+/Ig==");

  assembler.feed(stream::text_start(1));
  CHECK(assembler.feed(stream::text_delta(1, "Hello")) == nullptr);
  assembler.feed(stream::text_delta(1, ", wörld"));
  assembler.feed(stream::block_end(1));

  assembler.feed(stream::tool_call_start(2, "toolu_01", "get_weather"));
  const std::string input = R"({"location": "San Francisco, CA", "unit": "celsius", "days": [1, 2]})";
  assembler.feed(stream::tool_input_delta(2, ""));  // Anthropic's first input delta is empty
  for (std::size_t at = 0; at < input.size(); at += 3)
    assembler.feed(stream::tool_input_delta(2, std::string_view(input).substr(at, 3)));
  assembler.feed(stream::block_end(2));

  assembler.feed(stream::usage(json::object{{"input_tokens", 10}, {"cache_read_tokens", 4}}));
  assembler.feed(json::object{{"type", "progress"}, {"message", "ignored"}});
  assembler.feed(stream::usage(json::object{{"output_tokens", 20}}));
  assembler.feed(stream::usage(json::object{{"output_tokens", 25}}));
  CHECK_FALSE(assembler.has_open_blocks());
  CHECK(assembler.usage().at("output_tokens") == 25);

  const ChatResponse response = assembler.finish();
  REQUIRE(response.content.size() == 3);
  const auto *thinking = block_as<ThinkingBlock>(response.content[0]);
  REQUIRE(thinking != nullptr);
  CHECK(thinking->thinking == "Let me think.");
  CHECK(thinking->signature == "EqQBCgIYAh+/Ig==");
  CHECK(block_as<TextBlock>(response.content[1])->text == "Hello, wörld");
  const auto *call = block_as<ToolCallBlock>(response.content[2]);
  REQUIRE(call != nullptr);
  CHECK(call->id == "toolu_01");
  CHECK(call->name == "get_weather");
  CHECK(json::value(call->input) == json::parse(input));
  REQUIRE(response.tool_calls.size() == 1);
  CHECK(response.tool_calls[0].id == "toolu_01");
  REQUIRE(response.usage.has_value());
  CHECK(response.usage->input_tokens == 10);
  CHECK(response.usage->output_tokens == 25);
  CHECK(response.usage->total_tokens == 35);
  CHECK(response.usage->cache_read_tokens == 4);
  CHECK_FALSE(response.usage->reasoning_tokens.has_value());
  CHECK(response.text() == "Hello, wörld");
}

TEST_CASE("the end event's complete block wins over the accumulated one") {
  ResponseAssembler assembler;
  assembler.feed(stream::text_start(0));
  assembler.feed(stream::text_delta(0, "draft"));
  assembler.feed(stream::block_end(0, TextBlock{"final", std::string("user"), {}}));
  const ChatResponse response = assembler.finish();
  CHECK(block_as<TextBlock>(response.content[0])->text == "final");
  CHECK(block_as<TextBlock>(response.content[0])->visibility == "user");
  CHECK_FALSE(response.usage.has_value());  // no usage event, no usage
}

TEST_CASE("a provider's completed blocks rebuild the same response on the orchestrator side") {
  ResponseAssembler provider_side;
  ResponseAssembler orchestrator_side;
  // The provider emits every event it feeds, replacing bare ends by ends with the block.
  auto emit = [&](const json::object &event) {
    const ContentBlock *completed = provider_side.feed(event);
    const json::object sent =
        completed != nullptr ? stream::block_end(event.at("index").to_number<std::size_t>(), *completed)
                             : event;
    orchestrator_side.feed_json(json::serialize(sent));
  };
  emit(stream::block_start(0, json::object{{"type", "redacted_thinking"}}));
  emit(stream::redacted_thinking_delta(0, "EmwK"));
  emit(stream::redacted_thinking_delta(0, "AhgB"));
  emit(stream::block_end(0));
  emit(stream::tool_call_start(1, "c1", "ls"));
  emit(stream::tool_input_delta(1, R"({"path":)"));
  emit(stream::tool_input_delta(1, R"("/tmp"})"));
  emit(stream::block_end(1));

  const json::object provider_json = to_json(provider_side.finish());
  const json::object orchestrator_json = to_json(orchestrator_side.finish());
  CHECK(provider_json == orchestrator_json);
  CHECK(provider_json.at("content").as_array()[0].as_object().at("data") == "EmwKAhgB");
  CHECK(provider_json.at("tool_calls").as_array().size() == 1);
}

TEST_CASE("reasoning parts append as strings or arrays") {
  ResponseAssembler assembler;
  assembler.feed(stream::block_start(0, json::object{{"type", "reasoning"}, {"id", "rs_1"}}));
  assembler.feed(stream::reasoning_delta(0, nullptr, "Sum"));
  assembler.feed(stream::reasoning_delta(0, json::array{"a"}, "mary"));
  assembler.feed(stream::reasoning_delta(0, json::array{"b"}));
  assembler.feed(stream::block_end(0));
  const ChatResponse response = assembler.finish();
  const auto *reasoning = block_as<ReasoningBlock>(response.content[0]);
  REQUIRE(reasoning != nullptr);
  CHECK(reasoning->summary == "Summary");
  CHECK(reasoning->content == json::array{"a", "b"});
  CHECK(reasoning->extra.at("id") == "rs_1");

  ResponseAssembler mixed;
  mixed.feed(stream::block_start(0, json::object{{"type", "reasoning"}}));
  mixed.feed(stream::reasoning_delta(0, "text"));
  CHECK(contains(feed_error(mixed, stream::reasoning_delta(0, json::array{1})), "events[2].delta.content"));
}

TEST_CASE("blocks come out in index order; a tool call without deltas keeps its start input") {
  ResponseAssembler assembler;
  assembler.feed(stream::block_start(1, json::object{{"type", "tool_call"}, {"id", "c"}, {"name", "n"}, {"input", json::object{{"x", 1}}}}));
  assembler.feed(stream::text_start(0));
  assembler.feed(stream::block_end(1));
  assembler.feed(stream::block_end(0));
  const ChatResponse response = assembler.finish();
  REQUIRE(response.content.size() == 2);
  CHECK(block_as<TextBlock>(response.content[0])->text.empty());
  CHECK(block_as<ToolCallBlock>(response.content[1])->input.at("x") == 1);
}

TEST_CASE("invalid tool input JSON is reported at the block's end") {
  ResponseAssembler assembler;
  assembler.feed(stream::tool_call_start(0, "c", "n"));
  assembler.feed(stream::tool_input_delta(0, R"({"path": )"));
  const std::string error = feed_error(assembler, stream::block_end(0));
  CHECK(contains(error, "events[2]: tool_call block 0: its input is not valid JSON"));
  CHECK(contains(error, R"({"path": )"));

  ResponseAssembler array_input;
  array_input.feed(stream::tool_call_start(0, "c", "n"));
  array_input.feed(stream::tool_input_delta(0, "[1, 2]"));
  CHECK(contains(feed_error(array_input, stream::block_end(0)), "its input is not a JSON object: [1, 2]"));
}

TEST_CASE("a tool call that never got an id is rejected at its end") {
  ResponseAssembler assembler;
  assembler.feed(stream::block_start(0, json::object{{"type", "tool_call"}, {"name", "n"}}));
  CHECK(feed_error(assembler, stream::block_end(0)) == "events[1]: tool_call block has no id");
}

TEST_CASE("out-of-order events are rejected") {
  ResponseAssembler never_started;
  CHECK(feed_error(never_started, stream::text_delta(0, "x")) ==
        "events[0]: content_block_delta for block 0, which never started");

  ResponseAssembler ended_twice;
  ended_twice.feed(stream::text_start(0));
  ended_twice.feed(stream::block_end(0));
  CHECK(feed_error(ended_twice, stream::block_end(0)) ==
        "events[2]: content_block_end for block 0, which already ended");
  CHECK(feed_error(ended_twice, stream::text_delta(0, "late")) ==
        "events[3]: content_block_delta for block 0, which already ended");
  CHECK(feed_error(ended_twice, stream::text_start(0)) ==
        "events[4]: content_block_start for block 0, which already started");

  ResponseAssembler end_without_start;
  CHECK(feed_error(end_without_start, stream::block_end(7, TextBlock{"x", {}, {}})) ==
        "events[0]: content_block_end for block 7, which never started");

  ResponseAssembler wrong_delta;
  wrong_delta.feed(stream::thinking_start(0));
  CHECK(feed_error(wrong_delta, stream::text_delta(0, "x")) ==
        "events[1].delta: a text delta does not fit the thinking block 0");

  ResponseAssembler still_open;
  still_open.feed(stream::text_start(0));
  CHECK(still_open.has_open_blocks());
  CHECK_THROWS_WITH_AS(still_open.finish(),
                       "the stream ended with content block 0 still open (no content_block_end)",
                       ModelError);
}

TEST_CASE("malformed events are rejected clearly") {
  ResponseAssembler assembler;
  CHECK(feed_error(assembler, json::object{{"index", 0}}) == "events[0]: stream event has no type");
  CHECK(feed_error(assembler, json::object{{"type", "content_block_start"}, {"block", json::object{{"type", "text"}}}}) ==
        "events[1]: stream event has no index");
  CHECK(feed_error(assembler, json::object{{"type", "content_block_start"}, {"index", -1}, {"block", json::object{{"type", "text"}}}}) ==
        "events[2].index: expected a non-negative integer");
  CHECK(feed_error(assembler, json::object{{"type", "content_block_start"}, {"index", 0}}) ==
        "events[3]: content_block_start has no block object");
  CHECK(feed_error(assembler, stream::block_start(0, json::object{{"text", "untyped"}})) ==
        "events[4].block: content block has no type");
  assembler.feed(stream::text_start(0));
  CHECK(feed_error(assembler, json::object{{"type", "content_block_delta"}, {"index", 0}, {"delta", json::object{{"type", "text"}}}}) ==
        "events[6].delta: text delta has no text string");
  CHECK(feed_error(assembler, json::object{{"type", "content_block_delta"}, {"index", 0}, {"delta", json::object{{"text", "x"}}}}) ==
        "events[7].delta: delta has no type");
  CHECK(feed_error(assembler, json::object{{"type", "usage"}, {"usage", 5}}) ==
        "events[8]: usage event has no usage object");
  CHECK_THROWS_WITH_AS(assembler.feed(json::value("text")), "events[9]: a stream event must be a JSON object",
                       ModelError);
  CHECK_THROWS_WITH_AS(assembler.feed_json("{not json"), doctest::Contains("events[10]: invalid event JSON"),
                       ModelError);
}

TEST_CASE("an assembler is reusable after finish and reset") {
  ResponseAssembler assembler;
  assembler.feed(stream::text_start(0));
  assembler.feed(stream::text_delta(0, "one"));
  assembler.feed(stream::block_end(0));
  CHECK(assembler.finish().text() == "one");

  assembler.feed(stream::text_start(0));  // index 0 again: a new response
  assembler.feed(stream::text_delta(0, "two"));
  assembler.reset();
  CHECK_FALSE(assembler.has_open_blocks());
  CHECK(assembler.finish().content.empty());
}

TEST_CASE("typed deltas feed the assembler exactly as their JSON events do") {
  using amplifier::ResponseAssembler;
  ResponseAssembler typed, json_fed;
  for (ResponseAssembler *a : {&typed, &json_fed}) {
    a->feed(amplifier::stream::thinking_start(0));
    a->feed(amplifier::stream::text_start(1));
  }
  typed.feed_delta(0, AMP_DELTA_THINKING, "hmm \"q\"");
  typed.feed_delta(0, AMP_DELTA_SIGNATURE, "sig==");
  typed.feed_delta(1, AMP_DELTA_TEXT, "caf\xc3\xa9");
  json_fed.feed(amplifier::stream::thinking_delta(0, "hmm \"q\""));
  json_fed.feed(amplifier::stream::signature_delta(0, "sig=="));
  json_fed.feed(amplifier::stream::text_delta(1, "caf\xc3\xa9"));
  for (ResponseAssembler *a : {&typed, &json_fed}) {
    a->feed(amplifier::stream::block_end(0));
    a->feed(amplifier::stream::block_end(1));
  }
  CHECK(boost::json::serialize(amplifier::to_json(typed.finish())) ==
        boost::json::serialize(amplifier::to_json(json_fed.finish())));
}

TEST_CASE("a typed delta that does not fit its block fails with the event's path") {
  amplifier::ResponseAssembler assembler;
  assembler.feed(amplifier::stream::text_start(0));
  try {
    assembler.feed_delta(0, AMP_DELTA_SIGNATURE, "x");
    FAIL("no error");
  } catch (const amplifier::ModelError &e) {
    CHECK(e.path() == "events[1].delta");
    CHECK(std::string(e.what()).find("does not fit the text block 0") != std::string::npos);
  }
  CHECK_THROWS_AS(assembler.feed_delta(7, AMP_DELTA_TEXT, "x"), amplifier::ModelError);
}

TEST_CASE("a structure-only assembler checks the stream and keeps none of its content") {
  amplifier::ResponseAssembler checker(amplifier::ResponseAssembler::Options{false});
  checker.feed(amplifier::stream::text_start(0));
  checker.feed_delta(0, AMP_DELTA_TEXT, std::string(1000, 'x'));
  CHECK(checker.has_open_blocks());
  CHECK(checker.feed(boost::json::object{{"type", "content_block_end"}, {"index", 0}}) == nullptr);
  CHECK_FALSE(checker.has_open_blocks());
  CHECK_THROWS_AS(checker.feed_delta(0, AMP_DELTA_TEXT, "late"), amplifier::ModelError);
  CHECK_THROWS_AS(checker.finish(), std::logic_error);
}
