// Recorded Anthropic traffic -> ABI stream events and ChatResponses, and Anthropic error
// bodies -> typed kernel errors, without a network. The fixtures are read in place.
#include "anthropic_test_support.hpp"

#include "error_mapping.hpp"
#include "stream_mapping.hpp"

#include "amplifier/transport/sse_parser.hpp"

using namespace anthropic_test;
using namespace provider_anthropic;
namespace transport = amplifier::transport;
using amplifier::ErrorKind;

namespace {

struct Translated {
  std::vector<json::object> events;
  std::optional<amplifier::ChatResponse> response;
  std::optional<amplifier::KernelError> error;
};

amplifier::KernelError stream_error(std::string_view payload) {
  return map_stream_failure(payload, anthropic_error_options("claude-test"));
}

// Feeds `sse` through the shared SSE parser in pieces of `piece` bytes, as a network would.
Translated translate_sse(const std::string &sse, std::size_t piece = 7) {
  Translated out;
  StreamTranslator translator([&](const json::object &e) { out.events.push_back(e); },
                              stream_error);
  transport::SseParser parser([&](const transport::SseEvent &event) {
    if (!out.error) translator.on_sse_event(event.type, event.data);
  });
  try {
    for (std::size_t at = 0; at < sse.size(); at += piece)
      parser.feed(std::string_view(sse).substr(at, piece));
    parser.finish();
    out.response = translator.take_response("provider-anthropic");
  } catch (const amplifier::KernelException &e) {
    out.error = e.error();
  }
  return out;
}

amplifier::ChatResponse translate_message(const json::object &message) {
  StreamTranslator translator([](const json::object &) {}, stream_error);
  translator.on_message(message);
  return translator.take_response("provider-anthropic");
}

// What the raw payloads say a block should hold: the concatenation of its deltas' `field`.
std::string concatenated(const std::vector<json::object> &payloads, std::string_view delta_type,
                         std::string_view field) {
  std::string out;
  for (const auto &p : payloads) {
    if (p.at("type") != "content_block_delta") continue;
    const auto &delta = p.at("delta").as_object();
    if (delta.at("type").as_string() == delta_type) out += delta.at(field).as_string();
  }
  return out;
}

std::vector<std::string> event_types(const std::vector<json::object> &events) {
  std::vector<std::string> types;
  for (const auto &e : events) types.emplace_back(e.at("type").as_string());
  return types;
}

// Rebuilds a response from the events alone, as an orchestrator would.
json::object reassembled(const std::vector<json::object> &events) {
  amplifier::ResponseAssembler assembler;
  for (const auto &e : events) assembler.feed(e);
  return amplifier::to_json(assembler.finish());
}

transport::Headers headers_of(const json::object &recorded) {
  transport::Headers headers;
  for (const auto &field : recorded.at("headers").as_object())
    headers.add(std::string(field.key()), std::string(field.value().as_string()));
  return headers;
}

}  // namespace

TEST_CASE("usage: cache reads and writes apart, and of the writes the 1-hour ones") {
  amplifier::Usage usage;
  provider_anthropic::merge_anthropic_usage(
      json::parse(R"({"input_tokens":50,"output_tokens":20,"cache_read_input_tokens":3000,)"
                  R"("cache_creation_input_tokens":1000,"cache_creation":)"
                  R"({"ephemeral_5m_input_tokens":600,"ephemeral_1h_input_tokens":400}})")
          .as_object(),
      usage);
  CHECK(usage.input_tokens == 50);  // Anthropic's input excludes the cache
  CHECK(usage.cache_read_tokens == 3000);
  CHECK(usage.cache_write_tokens == 1000);
  CHECK(usage.extra.at("cache_write_1h_tokens") == 400);
  CHECK(usage.total_tokens == 4070);
}

TEST_CASE("recorded text stream: padded JSON parses, ping is ignored, deltas pass through live") {
  const std::string sse = fixture("anthropic_stream_text_recorded.sse");
  const auto payloads = sse_payloads(sse);
  for (std::size_t piece : {1, 7, 64, 100000}) {
    CAPTURE(piece);
    const Translated t = translate_sse(sse, piece);
    REQUIRE_MESSAGE(!t.error, t.error->message);
    CHECK(event_types(t.events) ==
          std::vector<std::string>{"usage", "content_block_start", "content_block_delta",
                                   "content_block_delta", "content_block_delta",
                                   "content_block_delta", "content_block_end", "usage"});
    CHECK(t.events.at(2).at("delta") == json::parse(R"({"type":"text","text":"["})"));
    CHECK(t.events.at(6).at("block") == json::parse(R"({"type":"text","text":"[12345,67890]"})"));
    const auto &r = *t.response;
    CHECK(r.text() == concatenated(payloads, "text_delta", "text"));
    CHECK(r.finish_reason == "end_turn");
    REQUIRE(r.usage);
    CHECK(r.usage->input_tokens == 135);
    CHECK(r.usage->output_tokens ==
          10);  // message_delta's cumulative count replaces message_start's 1
    CHECK(r.usage->cache_read_tokens == 0);
    CHECK(r.usage->cache_write_tokens == 0);
    CHECK(r.usage->total_tokens == 145);
    CHECK(r.metadata->at("model") == "claude-sonnet-4-5-20250929");
    CHECK(r.metadata->at("response_id") == "msg_013nnniYDrJDocdy5nrMU7cH");
    CHECK(amplifier::to_json(r).at("content") == reassembled(t.events).at("content"));
  }
}

TEST_CASE(
    "recorded tool_use stream: fragments pass as partial_json, the input is parsed once at the "
    "end") {
  const std::string sse = fixture("anthropic_stream_tool_use_recorded.sse");
  const auto payloads = sse_payloads(sse);
  const Translated t = translate_sse(sse, 5);
  REQUIRE_MESSAGE(!t.error, t.error->message);
  std::string partial;
  for (const auto &e : t.events) {
    if (e.at("type") != "content_block_delta") continue;
    CHECK(e.at("delta").at("type") == "tool_input");
    CHECK(!e.at("delta").at("partial_json").as_string().empty());  // the empty opener is not
                                                                   // forwarded
    partial += e.at("delta").at("partial_json").as_string();
  }
  CHECK(partial == concatenated(payloads, "input_json_delta", "partial_json"));
  CHECK(t.events.at(1).at("block") ==
        json::parse(
            R"({"type":"tool_call","id":"toolu_018acGYLtfR52q9yDbWaEdQZ","name":"get_weather"})"));
  const auto &r = *t.response;
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "toolu_018acGYLtfR52q9yDbWaEdQZ");
  CHECK(r.tool_calls[0].input == json::parse(R"({"location":"San Francisco, CA","units":"f"})"));
  CHECK(r.finish_reason == "tool_use");
  CHECK(r.usage->input_tokens == 656);
  CHECK(r.usage->output_tokens == 74);
}

TEST_CASE("thinking streams keep thinking text and signature exactly") {
  for (const char *name :
       {"anthropic_stream_thinking_docs.sse", "anthropic_stream_thinking_signature_refusal.sse"}) {
    CAPTURE(name);
    const std::string sse = fixture(name);
    const auto payloads = sse_payloads(sse);
    const Translated t = translate_sse(sse, 3);
    REQUIRE_MESSAGE(!t.error, t.error->message);
    const auto &r = *t.response;
    REQUIRE(r.content.size() == 2);
    const auto *thinking = amplifier::block_as<amplifier::ThinkingBlock>(r.content[0]);
    REQUIRE(thinking);
    CHECK(thinking->thinking == concatenated(payloads, "thinking_delta", "thinking"));
    CHECK(thinking->signature == concatenated(payloads, "signature_delta", "signature"));
    // The end event carries the complete unified block.
    json::object end_block;
    for (const auto &e : t.events)
      if (e.at("type") == "content_block_end" && e.at("index") == 0)
        end_block = e.at("block").as_object();
    CHECK(end_block == json::object{{"type", "thinking"},
                                    {"thinking", thinking->thinking},
                                    {"signature", *thinking->signature}});
    // Signature deltas are forwarded as such, and the empty thinking_delta is not forwarded.
    std::size_t signature_deltas = 0;
    for (const auto &e : t.events) {
      if (e.at("type") != "content_block_delta") continue;
      signature_deltas += e.at("delta").at("type") == "signature";
      if (e.at("delta").at("type") == "thinking")
        CHECK(!e.at("delta").at("thinking").as_string().empty());
    }
    CHECK(signature_deltas == 1);
  }
  SUBCASE("refusal: stop_reason, stop_details and thinking tokens are kept") {
    const Translated t = translate_sse(fixture("anthropic_stream_thinking_signature_refusal.sse"));
    CHECK(t.response->finish_reason == "refusal");
    CHECK(t.response->metadata->at("stop_details").at("type") == "refusal");
    CHECK(t.response->usage->reasoning_tokens == 67);
    CHECK(t.response->usage->output_tokens == 106);
  }
  SUBCASE("the docs stream has no usage at all: none is invented") {
    const Translated t = translate_sse(fixture("anthropic_stream_thinking_docs.sse"));
    CHECK(!t.response->usage);
  }
}

TEST_CASE(
    "an error event mid-stream becomes a typed error: overloaded_error is overloaded and "
    "retryable") {
  const Translated t = translate_sse(fixture("anthropic_stream_error_overloaded_docs.sse"));
  REQUIRE(t.error);
  CHECK(t.error->kind == ErrorKind::overloaded);
  CHECK(t.error->retryable);
  CHECK(t.error->extra.at("delay_multiplier") == kOverloadedDelayMultiplier);
  CHECK(t.error->message.find("Overloaded") != std::string::npos);
}

TEST_CASE("a stream without message_stop, invalid JSON, or an unknown event type") {
  const std::string sse = fixture("anthropic_stream_text_recorded.sse");
  SUBCASE("cut before message_stop: a stream error") {
    const Translated t = translate_sse(sse.substr(0, sse.find("event: message_delta")));
    REQUIRE(t.error);
    CHECK(t.error->kind == ErrorKind::stream);
  }
  SUBCASE("a data line that is not JSON: a stream error") {
    const Translated t =
        translate_sse("event: message_start\ndata: {\"type\":\"message_start\",\n\n");
    REQUIRE(t.error);
    CHECK(t.error->kind == ErrorKind::stream);
    CHECK(t.error->message.find("invalid JSON") != std::string::npos);
  }
  SUBCASE("an event type newer than this code is ignored") {
    std::string with_unknown = sse;
    with_unknown.insert(with_unknown.find("event: content_block_stop"),
                        "event: future_event\ndata: {\"type\":\"future_event\",\"x\":1}\n\n");
    const Translated t = translate_sse(with_unknown);
    REQUIRE(!t.error);
    CHECK(t.response->text() == "[12345,67890]");
  }
  SUBCASE("a delta for a block that never started: a stream error") {
    const Translated t = translate_sse(
        "event: content_block_delta\ndata: "
        "{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":"
        "\"x\"}}\n\n");
    REQUIRE(t.error);
    CHECK(t.error->kind == ErrorKind::stream);
  }
}

TEST_CASE("non-streamed Messages replay into the same blocks") {
  SUBCASE("tool_use with caller, cache usage") {
    const auto r = translate_message(fixture_json("anthropic_response_tool_use_recorded.json"));
    REQUIRE(r.tool_calls.size() == 1);
    CHECK(r.tool_calls[0].input == json::parse(R"({"location":"San Francisco, CA","units":"c"})"));
    CHECK(r.finish_reason == "tool_use");
    CHECK(r.usage->input_tokens == 659);
    CHECK(r.usage->cache_read_tokens == 0);
  }
  SUBCASE("thinking with a real signature, then text") {
    const json::object message = fixture_json("anthropic_response_thinking_recorded_vercel.json");
    const auto r = translate_message(message);
    const auto *thinking = amplifier::block_as<amplifier::ThinkingBlock>(r.content.at(0));
    REQUIRE(thinking);
    CHECK(thinking->signature == message.at("content").at(0).at("signature").as_string());
    CHECK(r.text() == "925 ÷ 5 = 185");
  }
  SUBCASE("thinking, text and tool_use in one content array") {
    const auto r =
        translate_message(fixture_json("anthropic_response_thinking_text_tool_use_docs.json"));
    CHECK(r.content.size() == 3);
    CHECK(r.tool_calls.at(0).name == "get_weather");
  }
  SUBCASE("redacted thinking keeps its data exactly") {
    const json::object message = fixture_json("anthropic_response_redacted_thinking_docs.json");
    const auto r = translate_message(message);
    const auto *redacted = amplifier::block_as<amplifier::RedactedThinkingBlock>(r.content.at(1));
    REQUIRE(redacted);
    CHECK(redacted->data == message.at("content").at(1).at("data").as_string());
  }
}

TEST_CASE("the streamed and the non-streamed form of one message give the same ChatResponse") {
  const Translated streamed = translate_sse(fixture("anthropic_stream_text_recorded.sse"));
  const auto payloads = sse_payloads(fixture("anthropic_stream_text_recorded.sse"));
  // The Message the same exchange returns without streaming: message_start's message with the
  // content filled in and message_delta's stop reason and usage.
  json::object message = payloads.at(0).at("message").as_object();
  message["content"] = json::array{json::object{{"type", "text"}, {"text", "[12345,67890]"}}};
  message["stop_reason"] = "end_turn";
  message["usage"] = payloads.at(payloads.size() - 2).at("usage");
  CHECK(amplifier::to_json(translate_message(message)) == amplifier::to_json(*streamed.response));
}

TEST_CASE("recorded error bodies map to typed errors with request id and retry hint") {
  const auto options = anthropic_error_options("claude-test");
  SUBCASE("400 invalid_request_error, x-should-retry false") {
    const auto recorded = fixture_json("anthropic_error_400_invalid_request_recorded.json");
    const auto error =
        map_http_failure(400, headers_of(recorded), json::serialize(recorded.at("body")), options);
    CHECK(error.kind == ErrorKind::invalid_request);
    CHECK(!error.retryable);
    CHECK(error.status_code == 400);
    CHECK(error.request_id == "req_011CYHyk9NPsBYeGbC9LuDNK");
    CHECK(error.provider == "provider-anthropic");
    CHECK(error.message.find("tool_use_id") != std::string::npos);
  }
  SUBCASE("429 rate_limit_error, x-should-retry true") {
    const auto recorded = fixture_json("anthropic_error_429_rate_limit_recorded.json");
    const auto error =
        map_http_failure(429, headers_of(recorded), json::serialize(recorded.at("body")), options);
    CHECK(error.kind == ErrorKind::rate_limit);
    CHECK(error.retryable);
    CHECK(error.request_id == "req_011CYK5n67SytMUxm8WMZUWY");
  }
  SUBCASE("404 not_found_error (the canonical envelope)") {
    const auto error = map_http_failure(404, {}, fixture("anthropic_error_404_docs.json"), options);
    CHECK(error.kind == ErrorKind::not_found);
    CHECK(error.request_id == "req_011CSHoEeqs5C35K2UUqR7Fy");
  }
  auto envelope = [](std::string_view type, std::string_view message) {
    return json::serialize(
        json::object{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}});
  };
  SUBCASE("every Anthropic error type") {
    struct Case {
      int status;
      const char *type;
      ErrorKind kind;
      bool retryable;
    };
    for (const Case &c : {Case{401, "authentication_error", ErrorKind::authentication, false},
                          Case{402, "billing_error", ErrorKind::quota, false},
                          Case{403, "permission_error", ErrorKind::access_denied, false},
                          Case{413, "request_too_large", ErrorKind::context_length, false},
                          Case{500, "api_error", ErrorKind::unavailable, true},
                          Case{504, "timeout_error", ErrorKind::timeout, true},
                          Case{529, "overloaded_error", ErrorKind::overloaded, true}}) {
      CAPTURE(c.type);
      const auto error = map_http_failure(c.status, {}, envelope(c.type, "m"), options);
      CHECK(error.kind == c.kind);
      CHECK(error.retryable == c.retryable);
    }
    CHECK(map_http_failure(529, {}, envelope("overloaded_error", "Overloaded"), options)
              .extra.at("delay_multiplier") == kOverloadedDelayMultiplier);
  }
  SUBCASE("'prompt is too long' is context_length and never retried, whatever the header says") {
    transport::Headers headers{{"x-should-retry", "true"}};
    const auto error = map_http_failure(
        400, headers,
        envelope("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"),
        options);
    CHECK(error.kind == ErrorKind::context_length);
    CHECK(!error.retryable);
  }
  SUBCASE("retry-after is read as seconds") {
    transport::Headers headers{{"retry-after", "7"}};
    const auto error =
        map_http_failure(429, headers, envelope("rate_limit_error", "slow down"), options);
    CHECK(error.retry_after == doctest::Approx(7.0));
  }
}

TEST_CASE(
    "a block type this code does not know (server_tool_use) passes through whole, input included") {
  const std::string sse =
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\"}}\n\n"
      "event: content_block_start\ndata: "
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
      "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}"
      "\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
      "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\": \\\"x\\\"}\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const Translated t = translate_sse(sse);
  REQUIRE_MESSAGE(!t.error, t.error->message);
  REQUIRE(t.response->content.size() == 1);
  const auto *unknown = amplifier::block_as<amplifier::UnknownBlock>(t.response->content[0]);
  REQUIRE(unknown);
  CHECK(
      unknown->raw ==
      json::parse(
          R"({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}})"));
}
