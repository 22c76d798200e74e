// ChatRequest -> Messages API body, without a network: system and developer messages, tool
// batching and repair, thinking fidelity, sampling rules, caching breakpoints, degradations.
#include "anthropic_test_support.hpp"

#include "prompt_caching.hpp"
#include "request_mapping.hpp"

using namespace anthropic_test;
using namespace provider_anthropic;

namespace {

AnthropicConfig test_config() {
  AnthropicConfig config;
  config.api_key = "k";
  config.enable_prompt_caching = false;  // most tests look at the plain mapping
  return config;
}

MappedRequest map(std::string_view request_json, const AnthropicConfig &config = test_config()) {
  return map_request(chat_request(request_json), config);
}

const json::array &messages_of(const MappedRequest &mapped) {
  return mapped.body.at("messages").as_array();
}

std::vector<std::string> roles_of(const MappedRequest &mapped) {
  std::vector<std::string> roles;
  for (const auto &m : messages_of(mapped)) roles.emplace_back(m.at("role").as_string());
  return roles;
}

std::vector<std::string> block_types(const json::value &message) {
  std::vector<std::string> types;
  for (const auto &b : message.at("content").as_array())
    types.emplace_back(b.at("type").as_string());
  return types;
}

bool has_degradation(const MappedRequest &mapped, std::string_view feature) {
  for (const auto &d : mapped.degradations)
    if (d.feature == feature) return true;
  return false;
}

// The real signature of a recorded thinking block, and its text.
struct RecordedThinking {
  std::string thinking;
  std::string signature;
};
RecordedThinking recorded_thinking() {
  const json::object message = fixture_json("anthropic_response_thinking_recorded_vercel.json");
  const auto &block = message.at("content").at(0).as_object();
  return {std::string(block.at("thinking").as_string()),
          std::string(block.at("signature").as_string())};
}

}  // namespace

TEST_CASE(
    "system messages join into `system`; developer messages become <context> before the "
    "conversation") {
  const auto mapped = map(R"({"messages":[
      {"role":"system","content":"You are terse."},
      {"role":"user","content":"hello"},
      {"role":"developer","content":"Project uses C++20."},
      {"role":"system","content":[{"type":"text","text":"Never guess."}]},
      {"role":"developer","content":"Build with ninja."}]})");
  CHECK(mapped.body.at("system") == "You are terse.\n\nNever guess.");
  REQUIRE(roles_of(mapped) == std::vector<std::string>{"user"});
  const auto &content = messages_of(mapped).at(0).at("content").as_array();
  REQUIRE(content.size() == 3);
  CHECK(content.at(0).at("text") == "<context>\nProject uses C++20.\n</context>");
  CHECK(content.at(1).at("text") == "<context>\nBuild with ninja.\n</context>");
  CHECK(content.at(2).at("text") == "hello");
  CHECK(mapped.body.at("model") == "claude-sonnet-4-5");
  CHECK(mapped.body.at("max_tokens") == kDefaultMaxTokens);
  CHECK(mapped.body.at("stream") == true);
  CHECK(mapped.degradations.empty());
}

TEST_CASE("consecutive tool messages batch into one user message of tool_result blocks") {
  const auto mapped = map(R"({"messages":[
      {"role":"user","content":"read both"},
      {"role":"assistant","content":[
          {"type":"tool_call","id":"t1","name":"read_file","input":{"path":"a"}},
          {"type":"tool_call","id":"t2","name":"read_file","input":{"path":"b"}}]},
      {"role":"tool","tool_call_id":"t1","content":[{"type":"tool_result","tool_call_id":"t1","output":"A text"}]},
      {"role":"tool","tool_call_id":"t2","content":[{"type":"tool_result","tool_call_id":"t2","output":{"error":"missing"},"is_error":true}]},
      {"role":"user","content":"thanks"}]})");
  REQUIRE(roles_of(mapped) == std::vector<std::string>{"user", "assistant", "user"});
  const auto &results = messages_of(mapped).at(2).at("content").as_array();
  REQUIRE(results.size() == 3);  // both results first, then the user's text merged in
  CHECK(results.at(0) ==
        json::parse(R"({"type":"tool_result","tool_use_id":"t1","content":"A text"})"));
  CHECK(
      results.at(1) ==
      json::parse(
          R"({"type":"tool_result","tool_use_id":"t2","content":"{\"error\":\"missing\"}","is_error":true})"));
  CHECK(results.at(2).at("type") == "text");
  const auto &tool_uses = messages_of(mapped).at(1).at("content").as_array();
  CHECK(tool_uses.at(0) ==
        json::parse(R"({"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}})"));
  CHECK(mapped.repaired_tool_calls.empty());
  CHECK(mapped.dropped_tool_results.empty());
}

TEST_CASE(
    "assistant turns resend thinking and redacted thinking first, byte for byte, then text, then "
    "tool_use") {
  const RecordedThinking recorded = recorded_thinking();
  const std::string redacted_data =
      std::string(fixture_json("anthropic_response_redacted_thinking_docs.json")
                      .at("content")
                      .at(1)
                      .at("data")
                      .as_string());
  json::object assistant{
      {"role", "assistant"},
      {"content",
       json::array{
           json::object{{"type", "text"}, {"text", "Let me check."}},
           json::object{
               {"type", "tool_call"}, {"id", "toolu_1"}, {"name", "ls"}, {"input", json::object{}}},
           json::object{{"type", "thinking"},
                        {"thinking", recorded.thinking},
                        {"signature", recorded.signature}},
           json::object{{"type", "redacted_thinking"}, {"data", redacted_data}},
       }}};
  json::object request{
      {"messages",
       json::array{
           json::object{{"role", "user"}, {"content", "go"}}, assistant,
           json::object{{"role", "tool"}, {"tool_call_id", "toolu_1"}, {"content", "ok"}}}}};
  const auto mapped = map(json::serialize(request));
  const auto &sent = messages_of(mapped).at(1);
  CHECK(block_types(sent) ==
        std::vector<std::string>{"thinking", "redacted_thinking", "text", "tool_use"});
  CHECK(sent.at("content").at(0).at("thinking").as_string() == recorded.thinking);
  CHECK(sent.at("content").at(0).at("signature").as_string() == recorded.signature);
  CHECK(sent.at("content").at(1).at("data").as_string() == redacted_data);
  // The serialized body carries the signature as the same bytes.
  CHECK(json::serialize(mapped.body).find("\"" + recorded.signature + "\"") != std::string::npos);
}

TEST_CASE(
    "a thinking block without a signature or a foreign reasoning block is left out, with a "
    "degradation") {
  const auto mapped = map(R"({"messages":[
      {"role":"user","content":"q"},
      {"role":"assistant","content":[
          {"type":"thinking","thinking":"from another provider"},
          {"type":"reasoning","summary":[{"type":"summary_text","text":"r"}]},
          {"type":"text","text":"answer"}]},
      {"role":"user","content":"more"}]})");
  CHECK(block_types(messages_of(mapped).at(1)) == std::vector<std::string>{"text"});
  CHECK(has_degradation(mapped, "thinking_without_signature"));
  CHECK(has_degradation(mapped, "reasoning_block"));
  CHECK(json::serialize(mapped.body).find("\"signature\"") == std::string::npos);
}

TEST_CASE(
    "tool sequence repair: a call without result gets a synthetic error result, an orphan result "
    "is dropped") {
  const auto mapped = map(R"({"messages":[
      {"role":"user","content":"do two things"},
      {"role":"assistant","content":[
          {"type":"tool_call","id":"a","name":"bash","input":{"cmd":"ls"}},
          {"type":"tool_call","id":"b","name":"read_file","input":{"path":"x"}}]},
      {"role":"tool","tool_call_id":"a","content":"listing"},
      {"role":"tool","tool_call_id":"ghost","content":"no call made me"},
      {"role":"user","content":"where is b?"}]})");
  REQUIRE(roles_of(mapped) == std::vector<std::string>{"user", "assistant", "user"});
  const auto &content = messages_of(mapped).at(2).at("content").as_array();
  REQUIRE(content.size() == 3);
  CHECK(content.at(0).at("tool_use_id") == "a");
  CHECK(content.at(1).at("tool_use_id") == "b");
  CHECK(content.at(1).at("is_error") == true);
  CHECK(content.at(1).at("content").as_string() == kMissingToolResultText);
  CHECK(content.at(2).at("text") == "where is b?");
  REQUIRE(mapped.repaired_tool_calls.size() == 1);
  CHECK(mapped.repaired_tool_calls[0].tool_call_id == "b");
  CHECK(mapped.repaired_tool_calls[0].tool_name == "read_file");
  CHECK(mapped.dropped_tool_results == std::vector<std::string>{"ghost"});
}

TEST_CASE(
    "a conversation ending on an unanswered tool call still ends with its (synthetic) result") {
  const auto mapped = map(R"({"messages":[
      {"role":"user","content":"go"},
      {"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"bash","input":{}}]}]})");
  REQUIRE(roles_of(mapped) == std::vector<std::string>{"user", "assistant", "user"});
  CHECK(messages_of(mapped).at(2).at("content").at(0).at("tool_use_id") == "c1");
  CHECK(mapped.repaired_tool_calls.size() == 1);
}

TEST_CASE(
    "consecutive messages of one role merge, so the API never sees two user messages in a row") {
  const auto mapped = map(R"({"messages":[
      {"role":"user","content":"first"},
      {"role":"user","content":[{"type":"text","text":"second"}]},
      {"role":"assistant","content":"a1"},
      {"role":"assistant","content":"a2"},
      {"role":"user","content":""},
      {"role":"user","content":"third"}]})");
  CHECK(roles_of(mapped) == std::vector<std::string>{"user", "assistant", "user"});
  CHECK(messages_of(mapped).at(0).at("content").as_array().size() == 2);
  CHECK(messages_of(mapped).at(1).at("content").as_array().size() == 2);
  CHECK(messages_of(mapped).at(2).at("content").as_array().size() == 1);  // the empty text is gone
}

TEST_CASE("images travel as base64 image blocks; a data: URL is converted") {
  const auto mapped = map(R"({"messages":[{"role":"user","content":[
      {"type":"text","text":"what is this?"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
      {"type":"image","source":{"type":"url","url":"data:image/jpeg;base64,/9j/4AAQ"}}]}]})");
  const auto &content = messages_of(mapped).at(0).at("content").as_array();
  CHECK(
      content.at(1) ==
      json::parse(
          R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}})"));
  CHECK(
      content.at(2) ==
      json::parse(
          R"({"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}})"));
}

TEST_CASE("tools carry input_schema; tool_choice, stop sequences and max_tokens are mapped") {
  const auto mapped = map(R"({"messages":[{"role":"user","content":"x"}],
      "tools":[{"name":"read_file","description":"Reads","parameters":{"type":"object","properties":{"path":{"type":"string"}}}},
               {"name":"now"}],
      "tool_choice":"required","stop":["END","STOP"],"max_output_tokens":777,"model":"claude-opus-4-1"})");
  const auto &tools = mapped.body.at("tools").as_array();
  CHECK(
      tools.at(0) ==
      json::parse(
          R"({"name":"read_file","description":"Reads","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}})"));
  CHECK(tools.at(1) ==
        json::parse(R"({"name":"now","input_schema":{"type":"object","properties":{}}})"));
  CHECK(mapped.body.at("tool_choice") == json::parse(R"({"type":"any"})"));
  CHECK(mapped.body.at("stop_sequences") == json::parse(R"(["END","STOP"])"));
  CHECK(mapped.body.at("max_tokens") == 777);
  CHECK(mapped.body.at("model") == "claude-opus-4-1");

  CHECK(map(R"({"messages":[{"role":"user","content":"x"}],"tools":[{"name":"t"}],
               "tool_choice":{"type":"function","function":{"name":"t"}}})")
            .body.at("tool_choice") == json::parse(R"({"type":"tool","name":"t"})"));
  CHECK(
      map(R"({"messages":[{"role":"user","content":"x"}],"tools":[{"name":"t"}],"tool_choice":"none"})")
          .body.at("tool_choice") == json::parse(R"({"type":"none"})"));
  CHECK(
      !map(R"({"messages":[{"role":"user","content":"x"}],"stop":"END"})").body.contains("tools"));
}

TEST_CASE(
    "extended thinking: budget, max_tokens above it, temperature dropped with a degradation") {
  AnthropicConfig config = test_config();
  config.extended_thinking = true;
  config.thinking_budget_tokens = 6000;
  config.max_tokens = 4000;
  const auto mapped =
      map(R"({"messages":[{"role":"user","content":"x"}],"temperature":0.2,"tools":[{"name":"t"}],
                              "tool_choice":"required"})",
          config);
  CHECK(mapped.body.at("thinking") == json::parse(R"({"type":"enabled","budget_tokens":6000})"));
  CHECK(mapped.body.at("max_tokens").as_int64() > 6000);
  CHECK(!mapped.body.contains("temperature"));
  CHECK(has_degradation(mapped, "temperature"));
  // Forcing a tool is not allowed with thinking.
  CHECK(mapped.body.at("tool_choice") == json::parse(R"({"type":"auto"})"));
  CHECK(has_degradation(mapped, "tool_choice"));

  SUBCASE("temperature 1 is what thinking needs: nothing to report") {
    const auto same =
        map(R"({"messages":[{"role":"user","content":"x"}],"temperature":1})", config);
    CHECK(!has_degradation(same, "temperature"));
  }
  SUBCASE("a request's reasoning_effort picks the budget; 'none' switches thinking off") {
    const auto high =
        map(R"({"messages":[{"role":"user","content":"x"}],"reasoning_effort":"high"})", config);
    CHECK(high.body.at("thinking").at("budget_tokens") == budget_for_effort("high"));
    const auto none = map(
        R"({"messages":[{"role":"user","content":"x"}],"reasoning_effort":"none","temperature":0.3})",
        config);
    CHECK(!none.body.contains("thinking"));
    CHECK(none.body.at("temperature") == 0.3);
  }
}

TEST_CASE("reasoning_effort in the config switches thinking on with the mapped budget") {
  AnthropicConfig config = test_config();
  config.reasoning_effort = "low";
  const auto mapped = map(R"({"messages":[{"role":"user","content":"x"}]})", config);
  CHECK(mapped.body.at("thinking").at("budget_tokens") == budget_for_effort("low"));
  CHECK(mapped.thinking.enabled);
  CHECK(!map(R"({"messages":[{"role":"user","content":"x"}]})").body.contains("thinking"));
}

TEST_CASE("a json_schema response_format cannot be honoured: recorded as a degradation") {
  const auto mapped = map(R"({"messages":[{"role":"user","content":"x"}],
      "response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{"type":"object"}}}})");
  REQUIRE(has_degradation(mapped, "response_format"));
  CHECK(mapped.degradations.at(0).reason.find("json_schema") != std::string::npos);
  CHECK(mapped.degradations.at(0).fallback.has_value());
  CHECK(map(R"({"messages":[{"role":"user","content":"x"}],"response_format":"text"})")
            .degradations.empty());
}

TEST_CASE("without thinking, temperature wins over top_p (recent models refuse both)") {
  const auto mapped =
      map(R"({"messages":[{"role":"user","content":"x"}],"temperature":0.5,"top_p":0.9})");
  CHECK(mapped.body.at("temperature") == 0.5);
  CHECK(!mapped.body.contains("top_p"));
  CHECK(has_degradation(mapped, "top_p"));
}

TEST_CASE(
    "prompt caching: breakpoints on system, last tool and the two latest user turns, never more "
    "than 4") {
  AnthropicConfig config = test_config();
  config.enable_prompt_caching = true;
  const RecordedThinking recorded = recorded_thinking();
  json::object request{
      {"messages",
       json::array{
           json::object{{"role", "system"}, {"content", "sys"}},
           json::object{{"role", "user"}, {"content", "one"}},
           json::object{{"role", "assistant"}, {"content", "r1"}},
           json::object{{"role", "user"}, {"content", "two"}},
           json::object{{"role", "assistant"},
                        {"content", json::array{json::object{{"type", "thinking"},
                                                             {"thinking", recorded.thinking},
                                                             {"signature", recorded.signature}},
                                                json::object{{"type", "tool_call"},
                                                             {"id", "c"},
                                                             {"name", "t2"},
                                                             {"input", json::object{}}}}}},
           json::object{{"role", "tool"}, {"tool_call_id", "c"}, {"content", "out"}},
       }},
      {"tools", json::array{json::object{{"name", "t1"}}, json::object{{"name", "t2"}}}}};
  const auto mapped = map(json::serialize(request), config);
  CHECK(count_cache_breakpoints(mapped.body) == 4);
  const json::object ephemeral{{"type", "ephemeral"}};
  CHECK(mapped.body.at("system").at(0).at("cache_control") == ephemeral);
  CHECK(mapped.body.at("tools").at(1).at("cache_control") == ephemeral);
  CHECK(!mapped.body.at("tools").at(0).as_object().contains("cache_control"));
  const auto &messages = messages_of(mapped);
  CHECK(messages.at(4).at("content").at(0).at("cache_control") == ephemeral);  // the tool result
  CHECK(messages.at(2).at("content").at(0).at("cache_control") == ephemeral);  // "two"
  CHECK(!messages.at(0).at("content").at(0).as_object().contains("cache_control"));
  // A thinking block never carries cache_control (and stays byte-identical).
  CHECK(messages.at(3).at("content").at(0).as_object().size() == 3);

  SUBCASE("disabled: no breakpoint at all, system stays a string") {
    const auto plain = map(json::serialize(request));
    CHECK(count_cache_breakpoints(plain.body) == 0);
    CHECK(plain.body.at("system").is_string());
  }
  SUBCASE("however long the conversation, at most 4") {
    json::array many;
    for (int i = 0; i < 20; ++i) {
      many.push_back(json::object{{"role", i % 2 ? "assistant" : "user"},
                                  {"content", "m" + std::to_string(i)}});
    }
    json::object long_request{{"messages", many}, {"tools", request.at("tools")}};
    long_request["messages"].as_array().insert(long_request["messages"].as_array().begin(),
                                               json::object{{"role", "system"}, {"content", "s"}});
    const auto long_mapped = map(json::serialize(long_request), config);
    CHECK(count_cache_breakpoints(long_mapped.body) == kMaxCacheBreakpoints);
  }
}
