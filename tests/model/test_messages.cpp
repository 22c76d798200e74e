// Messages, requests, responses, usage and tool results: lossless round trips and clear errors.
#include <amplifier/model.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace amplifier;

namespace {

template <class T>
T round_trip(std::string_view text) {
  const json::value original = json::parse(text);
  T parsed = from_json<T>(original);
  CHECK(json::value(to_json(parsed)) == original);
  return parsed;
}

template <class T>
std::string error_of(std::string_view text) {
  try {
    (void)from_json<T>(json::parse(text));
  } catch (const ModelError &error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every role converts to and from its name") {
  for (Role role : {Role::system, Role::developer, Role::user, Role::assistant, Role::tool,
                    Role::function})
    CHECK(role_from_string(to_string(role)) == role);
  CHECK(to_string(Role::function) == "function");
  CHECK_THROWS_WITH_AS(role_from_string("robot"), "role: unknown role 'robot'", ModelError);
}

TEST_CASE("string content stays a string and block content stays blocks") {
  const Message plain = round_trip<Message>(R"({"role":"user","content":"hello"})");
  CHECK_FALSE(plain.has_block_content());
  CHECK(plain.text() == "hello");

  const Message blocks =
      round_trip<Message>(R"({"role":"user","content":[{"type":"text","text":"hello"}]})");
  CHECK(blocks.has_block_content());
  CHECK(blocks.text() == "hello");

  const Message empty_blocks = round_trip<Message>(R"({"role":"assistant","content":[]})");
  CHECK(empty_blocks.has_block_content());
}

TEST_CASE("message fields and unknown fields round trip") {
  const Message message = round_trip<Message>(
      R"({"role":"tool","content":"42","name":"calc","tool_call_id":"call_9","metadata":{"source":"x"},"timestamp":"2025-01-01T00:00:00Z"})");
  CHECK(message.role == Role::tool);
  CHECK(message.name == "calc");
  CHECK(message.tool_call_id == "call_9");
  CHECK(message.metadata->at("source") == "x");
  CHECK(message.extra.at("timestamp") == "2025-01-01T00:00:00Z");

  const Message minimal = round_trip<Message>(R"({"role":"system","content":"be brief"})");
  CHECK_FALSE(minimal.name.has_value());
  CHECK_FALSE(minimal.metadata.has_value());
  CHECK(minimal.extra.empty());
}

TEST_CASE("a legacy function message round trips") {
  const Message message =
      round_trip<Message>(R"({"role":"function","name":"get_time","content":"12:00"})");
  CHECK(message.role == Role::function);
}

TEST_CASE("malformed messages name the path of the problem") {
  CHECK(error_of<Message>(R"({"content":"x"})") == "message has no role");
  CHECK(error_of<Message>(R"({"role":"wizard","content":"x"})") == "role: unknown role 'wizard'");
  CHECK(error_of<Message>(R"({"role":"user"})") == "message has no content");
  CHECK(error_of<Message>(R"({"role":"user","content":7})") ==
        "content: expected a string or an array of content blocks");
  CHECK(error_of<Message>(R"({"role":"user","content":[{"type":"text","text":"a"},{"type":"text"}]})") ==
        "content[1]: text block has no text");
  CHECK(error_of<std::vector<Message>>(R"([{"role":"user","content":"a"},{"role":1,"content":"b"}])") ==
        "[1].role: expected a string, got int64");
}

TEST_CASE("a chat request error names the nested path") {
  const std::string request = R"({"messages":[
      {"role":"system","content":"s"},
      {"role":"user","content":"u"},
      {"role":"assistant","content":"a"},
      {"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_call","name":"x","input":{}}]}]})";
  CHECK(error_of<ChatRequest>(request) == "messages[3].content[1]: tool_call block has no id");
  try {
    (void)from_json<ChatRequest>(json::parse(request));
  } catch (const ModelError &error) {
    CHECK(error.path() == "messages[3].content[1]");
    CHECK(error.problem() == "tool_call block has no id");
  }
  CHECK(error_of<ChatRequest>(R"({"model":"m"})") == "chat request has no messages");
  CHECK(error_of<ChatRequest>(R"({"messages":[],"temperature":"hot"})") ==
        "temperature: expected a number, got string");
  CHECK(error_of<ChatRequest>(R"({"messages":[],"stop":["a",2]})") == "stop[1]: expected a string");
  CHECK(error_of<ChatRequest>(R"({"messages":[],"tools":[{"description":"d"}]})") ==
        "tools[0]: tool spec has no name");
  CHECK(error_of<ChatRequest>(R"({"messages":[],"max_output_tokens":1.5})") ==
        "max_output_tokens: expected an integer, got a fractional number");
}

TEST_CASE("a full chat request round trips") {
  const ChatRequest request = round_trip<ChatRequest>(R"({
    "messages":[{"role":"developer","content":"rules"},{"role":"user","content":[{"type":"text","text":"hi","visibility":"user"}]}],
    "tools":[{"name":"read_file","description":"Reads a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}},"strict":true}],
    "response_format":{"type":"json_schema","json_schema":{"name":"x"}},
    "temperature":0.5,"top_p":0.25,"max_output_tokens":4096,"stream":true,
    "conversation_id":"conv-1","metadata":{"trace":"abc"},"model":"claude-sonnet-4-5",
    "tool_choice":"auto","stop":["END"],"reasoning_effort":"high","timeout":30.5,
    "service_tier":"priority"})");
  CHECK(request.messages.size() == 2);
  REQUIRE(request.tools.has_value());
  CHECK(request.tools->at(0).extra.at("strict") == true);
  CHECK(request.temperature == doctest::Approx(0.5));
  CHECK(request.max_output_tokens == 4096);
  CHECK(request.stream == true);
  CHECK(request.timeout == doctest::Approx(30.5));
  CHECK(request.extra.at("service_tier") == "priority");
}

TEST_CASE("absent request options stay absent") {
  const ChatRequest request = round_trip<ChatRequest>(R"({"messages":[{"role":"user","content":"x"}]})");
  CHECK_FALSE(request.tools.has_value());
  CHECK_FALSE(request.response_format.has_value());
  CHECK_FALSE(request.temperature.has_value());
  CHECK_FALSE(request.top_p.has_value());
  CHECK_FALSE(request.max_output_tokens.has_value());
  CHECK_FALSE(request.stream.has_value());
  CHECK_FALSE(request.conversation_id.has_value());
  CHECK_FALSE(request.metadata.has_value());
  CHECK_FALSE(request.model.has_value());
  CHECK_FALSE(request.tool_choice.has_value());
  CHECK_FALSE(request.stop.has_value());
  CHECK_FALSE(request.reasoning_effort.has_value());
  CHECK_FALSE(request.timeout.has_value());
  CHECK(to_json(request).size() == 1);

  // An empty tool list is not the same as no tools.
  CHECK(round_trip<ChatRequest>(R"({"messages":[],"tools":[]})").tools->empty());
  // A single stop string stays a string.
  CHECK(round_trip<ChatRequest>(R"({"messages":[],"stop":"END"})").stop->is_string());
}

TEST_CASE("a chat response round trips with usage, degradations and tool calls") {
  const ChatResponse response = round_trip<ChatResponse>(R"({
    "content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"Hi "},{"type":"text","text":"there"},
               {"type":"tool_call","id":"c1","name":"n","input":{}}],
    "tool_calls":[{"type":"tool_call","id":"c1","name":"n","input":{}}],
    "usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"reasoning_tokens":3,"cache_read_tokens":2,"cache_write_tokens":1},
    "degradations":[{"feature":"response_format","reason":"not supported","fallback":"prompted JSON"}],
    "finish_reason":"tool_use","metadata":{"request_id":"req_1"},"id":"msg_1"})");
  CHECK(response.text() == "Hi there");
  CHECK(response.tool_calls.size() == 1);
  CHECK(response.usage->reasoning_tokens == 3);
  CHECK(response.degradations.at(0).fallback == "prompted JSON");
  CHECK(response.extra.at("id") == "msg_1");
  CHECK(collect_tool_calls(response.content).at(0).id == "c1");
}

TEST_CASE("a minimal chat response stays minimal") {
  const ChatResponse response = round_trip<ChatResponse>(R"({"content":[]})");
  CHECK_FALSE(response.usage.has_value());
  CHECK_FALSE(response.finish_reason.has_value());
  CHECK(response.tool_calls.empty());
}

TEST_CASE("usage keeps unknown detail counts absent and derives the total") {
  const Usage usage = round_trip<Usage>(R"({"input_tokens":7,"output_tokens":3,"total_tokens":10})");
  CHECK_FALSE(usage.reasoning_tokens.has_value());
  CHECK_FALSE(usage.cache_read_tokens.has_value());
  CHECK_FALSE(usage.cache_write_tokens.has_value());

  const Usage partial = from_json<Usage>(json::parse(R"({"input_tokens":7,"output_tokens":3})"));
  CHECK(partial.total_tokens == 10);
  CHECK(error_of<Usage>(R"({"input_tokens":"7"})") == "input_tokens: expected an integer, got string");
}

TEST_CASE("tool specs, degradations and tool results round trip") {
  round_trip<ToolSpec>(R"({"name":"bash"})");
  round_trip<ToolSpec>(R"({"name":"bash","description":"Runs a command","parameters":{"type":"object"},"x-cost":3})");
  round_trip<Degradation>(R"({"feature":"tools.parallel","reason":"model runs one at a time"})");
  CHECK(error_of<Degradation>(R"({"reason":"r"})") == "degradation has no feature");

  const ToolResult ok = round_trip<ToolResult>(R"({"success":true,"output":{"files":["a","b"]}})");
  CHECK(ok.success);
  CHECK_FALSE(ok.error.has_value());

  const ToolResult failed = round_trip<ToolResult>(
      R"({"success":false,"output":null,"error":{"message":"not found","type":"FileNotFoundError"},"duration_ms":12})");
  CHECK_FALSE(failed.success);
  CHECK(failed.error->message == "not found");
  CHECK(failed.error->extra.at("type") == "FileNotFoundError");
  CHECK(failed.extra.at("duration_ms") == 12);

  CHECK(error_of<ToolResult>(R"({"output":1})") == "tool result has no success");
  CHECK(error_of<ToolResult>(R"({"success":"yes"})") == "success: expected a boolean, got string");
  CHECK(error_of<ToolResult>(R"({"success":false,"error":{}})") == "error: tool error has no message");
}

TEST_CASE("a typed field wins over an extra field of the same name") {
  TextBlock block{"typed", std::nullopt, json::object{{"text", "from extra"}, {"lang", "en"}}};
  const json::object out = to_json(block);
  CHECK(out.at("text") == "typed");
  CHECK(out.at("lang") == "en");
}

TEST_CASE("parse_json reports invalid text as a ModelError") {
  CHECK(parse_json(R"({"a":1})").as_object().at("a") == 1);
  try {
    (void)parse_json(R"({"a":})");
    FAIL("expected a ModelError");
  } catch (const ModelError &error) {
    CHECK(std::string(error.what()).rfind("invalid JSON at offset 5", 0) == 0);
  }
  CHECK_THROWS_AS(parse_json(R"({"a":1)"), ModelError);
}
