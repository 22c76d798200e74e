// The recorded Chat Completions streams (OpenAI's and Azure's) through the translator in every
// chunking and through real sessions; the request mapping; config errors.
#include "chat_test_support.hpp"

#include "chat_config.hpp"
#include "chat_request.hpp"
#include "chat_stream.hpp"

#include "amplifier/stream.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/sse_parser.hpp"

using namespace chat_test;
using namespace chat_completions;
using amplifier::KernelError;
using amplifier::KernelException;
namespace ms = amplifier::module_support;

namespace {

struct Translation {
  std::vector<json::object> events;  // typed deltas written out as their JSON events
  std::optional<amplifier::ChatResponse> response;
  std::optional<KernelError> error;
};

Translation translate(std::string_view sse, std::size_t piece = 0) {
  Translation out;
  ChatTranslator translator(
      [&](const json::object &event) { out.events.push_back(event); },
      [](std::string_view payload) { return amplifier::transport::map_stream_error(payload, {}); },
      [&](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
        out.events.push_back(kind == AMP_DELTA_TEXT ? amplifier::stream::text_delta(index, text)
                             : kind == AMP_DELTA_THINKING
                                 ? amplifier::stream::thinking_delta(index, text)
                                 : amplifier::stream::tool_input_delta(index, text));
      });
  amplifier::transport::SseParser parser(
      [&](const amplifier::transport::SseEvent &event) { translator.on_sse_data(event.data); });
  try {
    const std::size_t step = piece == 0 ? sse.size() : piece;
    for (std::size_t at = 0; at < sse.size(); at += step) parser.feed(sse.substr(at, step));
    parser.finish();
    out.response = translator.take_response("provider-chat-completions");
  } catch (const KernelException &e) {
    out.error = e.error();
  }
  return out;
}

json::value content_of(const amplifier::ChatResponse &response) {
  return amplifier::to_json(response).at("content");
}

ChatConfig read_config(std::string_view json_text) {
  ms::ConfigReader reader(json_text, "provider-chat-completions config");
  return ChatConfig::read(reader);
}

}  // namespace

TEST_CASE(
    "recorded streams: the same events and response in chunks of 1 to 16 bytes, and the "
    "kernel's assembler agrees") {
  for (const std::string &sse :
       {fixture("openai_chat_stream_tool_call_usage_recorded.sse"),
        fixture("openai_chat_stream_parallel_tool_calls_recorded.sse"),
        ndjson_as_sse("azure_openai_chat_stream_recorded_vercel.ndjson")}) {
    const Translation whole = translate(sse);
    REQUIRE(whole.response);
    amplifier::ResponseAssembler assembler;
    for (const auto &event : whole.events) assembler.feed(event);
    CHECK(amplifier::to_json(assembler.finish()).at("content") == content_of(*whole.response));
    for (std::size_t piece = 1; piece <= 16; ++piece) {
      CAPTURE(piece);
      const Translation chunked = translate(sse, piece);
      REQUIRE(chunked.response);
      CHECK(chunked.events == whole.events);
      CHECK(content_of(*chunked.response) == content_of(*whole.response));
    }
  }
}

TEST_CASE("recorded tool call with usage; recorded parallel calls by index; Azure's filters") {
  const Translation one = translate(fixture("openai_chat_stream_tool_call_usage_recorded.sse"));
  REQUIRE(one.response);
  const auto &call = std::get<amplifier::ToolCallBlock>(one.response->content.at(0));
  CHECK(call.id == "call_4XzlGBLtUe9dy3GVNV4jhq7h");
  CHECK(call.name == "get_weather");
  CHECK(call.input == json::parse(R"({"city":"New York City"})"));
  CHECK(one.response->finish_reason == "tool_calls");
  CHECK(one.response->usage->input_tokens == 44);
  CHECK(one.response->usage->output_tokens == 16);
  CHECK(one.response->usage->reasoning_tokens == 0);

  const Translation two = translate(fixture("openai_chat_stream_parallel_tool_calls_recorded.sse"));
  REQUIRE(two.response);
  REQUIRE(two.response->tool_calls.size() == 2);
  CHECK(two.response->tool_calls[0].name == "GetWeatherArgs");
  CHECK(two.response->tool_calls[1].id == "call_DNYTawLBoN8fj3KN6qU9N1Ou");
  const auto &second = std::get<amplifier::ToolCallBlock>(two.response->content.at(1));
  CHECK(second.input == json::parse(R"({"ticker":"AAPL","exchange":"NASDAQ"})"));
  // Written with spaces: kept as the model wrote it, so it goes back the same.
  CHECK(second.extra.at("arguments") == R"({"ticker": "AAPL", "exchange": "NASDAQ"})");

  const Translation azure =
      translate(ndjson_as_sse("azure_openai_chat_stream_recorded_vercel.ndjson"));
  REQUIRE(azure.response);
  CHECK(std::get<amplifier::TextBlock>(azure.response->content.at(0)).text.rfind("Capital", 0) ==
        0);
  CHECK(azure.response->usage.has_value());
}

TEST_CASE("a stream without [DONE], a mid-stream error chunk, and invalid JSON are typed errors") {
  std::string cut = text_stream({"Hello", " there"});
  cut.resize(cut.find(kDone));
  const Translation truncated = translate(cut);
  REQUIRE(truncated.error);
  CHECK(truncated.error->kind == amplifier::ErrorKind::stream);

  const Translation failed = translate(
      delta_chunk({{"content", "Hi"}}) +
      chunk({{"error",
              {{"message", "The model crashed"}, {"type", "server_error"}, {"code", 500}}}}));
  REQUIRE(failed.error);
  CHECK(failed.error->message.find("The model crashed") != std::string::npos);

  const Translation garbage = translate("data: {\"choices\": [\n\n");
  REQUIRE(garbage.error);
  CHECK(garbage.error->kind == amplifier::ErrorKind::stream);
}

TEST_CASE("config: base_url is required; authorization cannot hide in extra_headers") {
  auto error_of = [](std::string_view text) {
    try {
      read_config(text);
    } catch (const ms::ConfigError &e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error_of("{}").find("base_url") != std::string::npos);
  CHECK(error_of(R"({"base_url":"localhost:8000"})").find("base_url") != std::string::npos);
  CHECK(error_of(R"({"base_url":"http://h/v1","extra_headers":{"Authorization":"x"}})")
            .find("api_key") != std::string::npos);
  const ChatConfig config = read_config(
      R"({"base_url":"http://h:1/v1/","api_key":"k","extra_headers":{"X-Title":"amp"},
          "extra_body":{"top_k":20}})");
  CHECK(config.base_url == "http://h:1/v1");
  CHECK(config.extra_headers.at(0).first == "X-Title");
  CHECK(config.extra_body.at("top_k") == 20);
}

TEST_CASE("request mapping: roles, images, tool calls and results in call order, reasoning") {
  const ChatConfig config = read_config(R"({"base_url":"http://h/v1","default_model":"m",
                                            "max_tokens":300,"extra_body":{"top_k":20}})");
  const MappedChat mapped = map_request(chat_request(R"({
      "messages":[
        {"role":"system","content":"Be brief."},
        {"role":"developer","content":"Use tools."},
        {"role":"user","content":[{"type":"text","text":"what is this?"},
          {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]},
        {"role":"assistant","content":[
          {"type":"thinking","thinking":"Look first.","reasoning_field":"reasoning_content"},
          {"type":"text","text":"Checking."},
          {"type":"tool_call","id":"c1","name":"look","input":{"x":1}},
          {"type":"tool_call","id":"c2","name":"look","input":{"x":2},"arguments":"{\"x\": 2}"}]},
        {"role":"tool","tool_call_id":"c2","content":"two"},
        {"role":"tool","tool_call_id":"c1","content":"one"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},
                                       {"type":"text","text":"Done."}]}],
      "tools":[{"name":"look","parameters":{"type":"object"}}],
      "stop":["END"],"response_format":{"type":"json_object"}})"),
                                        config);
  const json::array &messages = mapped.body.at("messages").as_array();
  REQUIRE(messages.size() == 7);
  CHECK(messages[0] == json::parse(R"({"role":"system","content":"Be brief."})"));
  CHECK(messages[1] == json::parse(R"({"role":"system","content":"Use tools."})"));
  CHECK(messages[2].at("content").at(1) ==
        json::parse(R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR"}})"));
  CHECK(messages[3].at("reasoning_content") == "Look first.");
  CHECK(messages[3].at("content") == "Checking.");
  CHECK(messages[3].at("tool_calls").at(0) ==
        json::parse(
            R"({"id":"c1","type":"function","function":{"name":"look","arguments":"{\"x\":1}"}})"));
  CHECK(messages[3].at("tool_calls").at(1).at("function").at("arguments") == "{\"x\": 2}");
  CHECK(messages[4] == json::parse(R"({"role":"tool","tool_call_id":"c1","content":"one"})"));
  CHECK(messages[5].at("tool_call_id") == "c2");
  CHECK(messages[6] == json::parse(R"({"role":"assistant","content":"Done."})"));
  std::vector<std::string> features;
  for (const auto &d : mapped.degradations) features.push_back(d.feature);
  CHECK(features == std::vector<std::string>{"thinking_block"});

  const json::object &body = mapped.body;
  CHECK(body.at("model") == "m");
  CHECK(body.at("tools").at(0) ==
        json::parse(
            R"({"type":"function","function":{"name":"look","parameters":{"type":"object"}}})"));
  CHECK(body.at("max_tokens") == 300);
  CHECK(body.at("stop") == json::parse(R"(["END"])"));
  CHECK(body.at("response_format") == json::parse(R"({"type":"json_object"})"));
  CHECK(body.at("stream_options") == json::parse(R"({"include_usage":true})"));
  CHECK(body.at("top_k") == 20);
}

TEST_CASE("every recorded stream replays into a session; the tool calls get results in order") {
  loopback::LoopbackServer server;
  server.enqueue(sse_body(fixture("openai_chat_stream_parallel_tool_calls_recorded.sse")));
  server.enqueue(sse_body(ndjson_as_sse("azure_openai_chat_stream_recorded_vercel.ndjson")));
  auto session = open_session(chat_plan(chat_config(server.base_url())));
  EventRecorder events(session->hooks());
  const auto result = session->execute("weather and stocks?");
  CHECK(result.status == "success");
  CHECK(result.response.rfind("Capital", 0) == 0);
  CHECK(events.named("tool:error").size() == 2);  // neither tool is mounted

  REQUIRE(server.requests().size() == 2);
  const loopback::RecordedRequest sent = server.requests()[0];
  CHECK(sent.target == "/v1/chat/completions");
  CHECK(!sent.header("authorization"));  // no api_key configured
  const json::object second = request_body(server.requests()[1]);
  const json::array &messages = second.at("messages").as_array();
  REQUIRE(messages.size() == 4);
  CHECK(messages[1].at("tool_calls").as_array().size() == 2);
  // The recorded arguments, byte for byte.
  CHECK(messages[1].at("tool_calls").at(1).at("function").at("arguments") ==
        R"({"ticker": "AAPL", "exchange": "NASDAQ"})");
  CHECK(messages[2].at("tool_call_id") == "call_JMW1whyEaYG438VE1OIflxA2");
  CHECK(messages[3].at("tool_call_id") == "call_DNYTawLBoN8fj3KN6qU9N1Ou");
}
