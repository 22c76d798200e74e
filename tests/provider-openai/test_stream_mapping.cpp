// ResponsesTranslator on the recorded Responses streams and the spec's event examples: what
// reaches the host live, what the finished response holds, and that the bytes' chunking never
// changes either.
#include "openai_test_support.hpp"

#include "responses_stream.hpp"

#include "amplifier/stream.hpp"
#include "amplifier/transport/sse_parser.hpp"
#include "amplifier/transport/error_mapping.hpp"

using namespace openai_test;
using namespace openai_responses;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;

namespace {

KernelError map_error(std::string_view payload) {
  return amplifier::transport::map_stream_error(payload, {});
}

// One stream run through the SSE parser and a translator, `piece` bytes at a time (0: whole).
struct Translation {
  std::vector<json::object> events;  // typed deltas written out as their JSON events
  std::optional<RoundResult> result;
  std::optional<KernelError> error;
};

Translation translate(std::string_view sse, std::size_t piece = 0) {
  Translation out;
  ResponsesTranslator translator(
      [&](const json::object &event) { out.events.push_back(event); }, map_error,
      [&](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
        out.events.push_back(kind == AMP_DELTA_TEXT
                                 ? amplifier::stream::text_delta(index, text)
                                 : amplifier::stream::tool_input_delta(index, text));
      });
  amplifier::transport::SseParser parser([&](const amplifier::transport::SseEvent &event) {
    if (!out.error) translator.on_sse_event(event.type, event.data);
  });
  try {
    if (piece == 0) {
      parser.feed(sse);
    } else {
      for (std::size_t at = 0; at < sse.size(); at += piece) parser.feed(sse.substr(at, piece));
    }
    parser.finish();
    out.result = translator.take_result();
  } catch (const KernelException &e) {
    out.error = e.error();
  }
  return out;
}

json::value all_of(const RoundResult &result) {
  json::array content;
  for (const auto &block : result.content) content.push_back(amplifier::to_json(block));
  return content;
}

// encrypted_content left out: a reasoning block's end event carries it as of
// output_item.done, and only the finished response has the value response.completed gave.
json::value without_encrypted_content(json::array content) {
  for (auto &block : content) block.as_object().erase("encrypted_content");
  return content;
}

// The content the live events stand for, rebuilt by the kernel's own assembler.
json::value assembled(const std::vector<json::object> &events) {
  amplifier::ResponseAssembler assembler;
  for (const auto &event : events) assembler.feed(event);
  return without_encrypted_content(amplifier::to_json(assembler.finish()).at("content").as_array());
}

json::value content_json(const RoundResult &result) {
  return without_encrypted_content(all_of(result).as_array());
}

json::object spec_example(std::string_view type) {
  return fixture_json("openai_responses_stream_event_examples_spec.json")
      .at("examples")
      .at(type)
      .as_object();
}

}  // namespace

TEST_CASE("every recorded stream gives the same events and result in chunks of 1 to 16 bytes") {
  std::vector<std::string> streams =
      ndjson_streams("openai_responses_stream_reasoning_tool_loop_recorded_vercel.ndjson");
  REQUIRE(streams.size() == 4);
  streams.push_back(fixture("openai_responses_stream_docs.sse"));
  streams.push_back(ndjson_streams("openai_responses_stream_error_recorded_vercel.ndjson").at(0));
  for (std::size_t s = 0; s < streams.size(); ++s) {
    CAPTURE(s);
    const Translation whole = translate(streams[s]);
    if (whole.result) CHECK(assembled(whole.events) == content_json(*whole.result));
    for (std::size_t piece = 1; piece <= 16; ++piece) {
      CAPTURE(piece);
      const Translation chunked = translate(streams[s], piece);
      CHECK(chunked.events == whole.events);
      REQUIRE(chunked.result.has_value() == whole.result.has_value());
      if (whole.result) CHECK(all_of(*chunked.result) == all_of(*whole.result));
      if (whole.error)
        CHECK(amplifier::to_json(*chunked.error) == amplifier::to_json(*whole.error));
    }
  }
}

TEST_CASE("reasoning + function call: ids kept, the summary streamed, the last encrypted_content") {
  const std::string sse =
      ndjson_streams("openai_responses_stream_reasoning_tool_loop_recorded_vercel.ndjson").at(0);
  const auto payloads = sse_payloads(sse);
  // The recording changes encrypted_content from added to done to completed.
  std::string added, done, completed;
  for (const auto &p : payloads) {
    if (p.at("type") == "response.output_item.added" && p.at("item").at("type") == "reasoning")
      added = p.at("item").at("encrypted_content").as_string();
    if (p.at("type") == "response.output_item.done" && p.at("item").at("type") == "reasoning")
      done = p.at("item").at("encrypted_content").as_string();
    if (p.at("type") == "response.completed")
      completed = p.at("response").at("output").at(0).at("encrypted_content").as_string();
  }
  REQUIRE(added != done);
  REQUIRE(done != completed);

  const Translation t = translate(sse);
  REQUIRE(t.result);
  const RoundResult &result = *t.result;
  REQUIRE(result.content.size() == 2);
  const auto *reasoning = std::get_if<amplifier::ReasoningBlock>(&result.content[0]);
  REQUIRE(reasoning);
  CHECK(reasoning->extra.at("id") == "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9");
  CHECK(reasoning->extra.at("encrypted_content") == json::value(completed));
  std::string summary;
  for (const auto &p : payloads)
    if (p.at("type") == "response.reasoning_summary_text.delta")
      summary += p.at("delta").as_string();
  CHECK(reasoning->summary ==
        json::array{json::object{{"type", "summary_text"}, {"text", summary}}});

  const auto *call = std::get_if<amplifier::ToolCallBlock>(&result.content[1]);
  REQUIRE(call);
  CHECK(call->name == "calculator");
  CHECK(call->input == json::parse(R"({"a":12,"b":7,"op":"add"})"));
  CHECK(call->extra.at("item_id") == "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f");
  CHECK(!call->extra.contains("arguments_error"));
  CHECK(result.response_id == "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691");
  CHECK(result.status == "completed");
  REQUIRE(result.usage);
  CHECK(result.usage->input_tokens == 134);
  CHECK(result.usage->output_tokens == 28);
  CHECK(result.usage->reasoning_tokens == 0);

  // Live: a reasoning block, its summary as reasoning deltas, then the call's argument deltas.
  std::vector<std::string> kinds;
  for (const auto &e : t.events) kinds.emplace_back(e.at("type").as_string());
  CHECK(kinds.front() == "content_block_start");
  CHECK(t.events.front().at("block").at("type") == "reasoning");
  std::string streamed_arguments;
  for (const auto &e : t.events)
    if (e.at("type") == "content_block_delta" && e.at("delta").at("type") == "tool_input")
      streamed_arguments += e.at("delta").at("partial_json").as_string();
  CHECK(streamed_arguments == R"({"a":12,"b":7,"op":"add"})");
}

TEST_CASE("the docs stream, whose deltas were cut: the final text wins, live readers get it") {
  const Translation t = translate(fixture("openai_responses_stream_docs.sse"));
  REQUIRE(t.result);
  REQUIRE(t.result->content.size() == 1);
  CHECK(amplifier::to_json(t.result->content[0]) ==
        json::parse(R"({"type":"text","text":"Hi there! How can I assist you today?"})"));
  CHECK(assembled(t.events) == content_json(*t.result));
  CHECK(t.result->usage->input_tokens == 37);
}

TEST_CASE("errors mid-stream, nested (recorded) and flat (spec), and response.failed") {
  const Translation recorded =
      translate(ndjson_streams("openai_responses_stream_error_recorded_vercel.ndjson").at(0));
  REQUIRE(recorded.error);
  CHECK(recorded.error->kind == ErrorKind::quota);
  CHECK(recorded.error->message.find("exceeded your current quota") != std::string::npos);

  const Translation flat = translate(sse_event(spec_example("error")));
  REQUIRE(flat.error);
  CHECK(flat.error->message.find("Something went wrong") != std::string::npos);

  const Translation failed = translate(sse_event(spec_example("response.failed")));
  REQUIRE(failed.error);
  CHECK(failed.error->kind == ErrorKind::unavailable);

  // The spec's own delta example is not JSON: a typed stream error, naming the event.
  const std::string broken = fixture_json("openai_responses_stream_event_examples_spec.json")
                                 .at("examples_not_valid_json_verbatim")
                                 .at("response.function_call_arguments.delta")
                                 .as_string()
                                 .c_str();
  std::string data;
  std::istringstream lines(broken);
  for (std::string line; std::getline(lines, line);) data += "data: " + line + "\n";
  const Translation invalid =
      translate("event: response.function_call_arguments.delta\n" + data + "\n");
  REQUIRE(invalid.error);
  CHECK(invalid.error->kind == ErrorKind::stream);
  CHECK(invalid.error->message.find("response.function_call_arguments.delta") != std::string::npos);
}

TEST_CASE("response.incomplete finishes the round with its reason; a stream cut short does not") {
  const Translation incomplete = translate(sse_event(spec_example("response.incomplete")));
  REQUIRE(incomplete.result);
  CHECK(incomplete.result->status == "incomplete");
  CHECK(incomplete.result->incomplete_reason == spec_example("response.incomplete")
                                                    .at("response")
                                                    .at("incomplete_details")
                                                    .at("reason")
                                                    .as_string());

  std::string cut = ndjson_streams(
                        "openai_responses_stream_reasoning_tool_loop_recorded_vercel."
                        "ndjson")
                        .at(3);
  cut.resize(cut.rfind("event: response.completed"));
  const Translation unfinished = translate(cut);
  REQUIRE(unfinished.error);
  CHECK(unfinished.error->kind == ErrorKind::stream);
}

TEST_CASE("arguments that are not a JSON object: the call survives with the reason in extra") {
  auto stream_with_arguments = [](std::string_view arguments) {
    std::string sse;
    sse += sse_event({{"type", "response.output_item.added"},
                      {"output_index", 0},
                      {"item",
                       {{"type", "function_call"},
                        {"id", "fc_1"},
                        {"call_id", "call_1"},
                        {"name", "calc"},
                        {"arguments", ""}}}});
    sse += sse_event({{"type", "response.function_call_arguments.delta"},
                      {"output_index", 0},
                      {"delta", arguments}});
    sse += sse_event(
        {{"type", "response.completed"},
         {"response", {{"id", "resp_1"}, {"status", "completed"}, {"output", json::array{}}}}});
    return sse;
  };
  for (std::string_view bad : {std::string_view(R"({"a": 1)"), std::string_view("[1,2]")}) {
    CAPTURE(bad);
    const Translation t = translate(stream_with_arguments(bad));
    REQUIRE(t.result);
    const auto *call = std::get_if<amplifier::ToolCallBlock>(&t.result->content.at(0));
    REQUIRE(call);
    CHECK(call->input.empty());
    CHECK(call->extra.at("arguments") == json::value(json::string(bad)));
    CHECK(call->extra.at("arguments_error").is_string());
  }
}

TEST_CASE("non-streamed Responses replay through the same steps") {
  SUBCASE("reasoning with encrypted_content") {
    const json::object response =
        fixture_json("openai_responses_reasoning_encrypted_recorded_vercel.json");
    std::vector<json::object> events;
    ResponsesTranslator translator([&](const json::object &e) { events.push_back(e); }, map_error);
    translator.on_response(response);
    const RoundResult result = translator.take_result();
    const auto *reasoning = std::get_if<amplifier::ReasoningBlock>(&result.content.at(0));
    REQUIRE(reasoning);
    CHECK(reasoning->extra.at("encrypted_content") ==
          response.at("output").at(0).at("encrypted_content"));
    CHECK(result.usage->reasoning_tokens == 128);
    CHECK(assembled(events) == content_json(result));
  }
  SUBCASE("Azure: a function call and the top-level content_filters") {
    const json::object response =
        fixture_json("azure_openai_responses_function_call_recorded_vercel.json");
    ResponsesTranslator translator([](const json::object &) {}, map_error);
    translator.on_response(response);
    const RoundResult result = translator.take_result();
    const auto *call = std::get_if<amplifier::ToolCallBlock>(&result.content.at(0));
    REQUIRE(call);
    CHECK(call->id == "call_YunNGbIwdVJ2i0y0Mybva4Pw");
    CHECK(call->input == json::parse(R"({"location":"San Francisco"})"));
    CHECK(result.content_filters == response.at("content_filters"));
  }
  SUBCASE("text, with cache counts") {
    ResponsesTranslator translator([](const json::object &) {}, map_error);
    translator.on_response(fixture_json("openai_responses_text_recorded.json"));
    const RoundResult result = translator.take_result();
    CHECK(std::get<amplifier::TextBlock>(result.content.at(0)).text.rfind("I can't provide", 0) ==
          0);
    CHECK(result.usage->cache_read_tokens == 0);
    CHECK(result.usage->cache_write_tokens == 0);
  }
}
