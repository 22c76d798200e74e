// Resume repair and provider adaptation (context-core), as pure functions.
#include "context_test_support.hpp"

#include "amplifier/context/provider_adaptation.hpp"
#include "amplifier/context/resume_repair.hpp"

using namespace ctxtest;
namespace ctx = amplifier::context;
using amplifier::transcript::Origin;

namespace {

std::vector<ctx::Entry> entries(const std::vector<json::object> &messages) {
  std::vector<ctx::Entry> out;
  for (const auto &m : messages) out.push_back(ctx::Entry{m, std::nullopt});
  return out;
}

json::array all_messages(const ctx::Repair &repair) {
  json::array out;
  for (const auto &e : repair.history) out.push_back(e.message);
  for (const auto &m : repair.tail) out.push_back(m);
  return out;
}

json::object two_calls() {
  json::object message = tool_call_message("c1", "ls", "looking");
  message["content"].as_array().push_back(
      json::object{{"type", "tool_call"}, {"id", "c2"}, {"name", "cat"}, {"input", json::object{}}});
  return message;
}

}  // namespace

TEST_CASE("killed mid-tool: each unanswered call gets a synthetic result, then a closing note") {
  const auto repair = ctx::repair_for_resume(
      entries({text_message("user", "go"), two_calls(), tool_result_message("c1", "a.txt")}));
  CHECK(repair.history.size() == 3);
  REQUIRE(repair.tail.size() == 2);
  CHECK(repair.tail[0].at("role") == "tool");
  CHECK(repair.tail[0].at("tool_call_id") == "c2");
  CHECK(repair.tail[0].at("name") == "cat");
  const auto &block = repair.tail[0].at("content").as_array()[0];
  CHECK(block.at("is_error") == true);
  CHECK(block.at("output").as_string() == ctx::kInterruptedToolText);
  CHECK(repair.tail[1].at("role") == "assistant");
  CHECK(repair.tail[1].at("metadata").at("synthetic") == "resume");
  CHECK(repair.report.synthetic_tool_results == 1);
  CHECK(repair.report.closing_messages == 1);
  check_alternation(all_messages(repair));
}

TEST_CASE("killed while the provider answered: the turn is closed, so no two user messages follow") {
  const auto repair = ctx::repair_for_resume(
      entries({text_message("user", "one"), text_message("assistant", "ok"), text_message("user", "two")}));
  REQUIRE(repair.tail.size() == 1);
  CHECK(repair.tail[0].at("content").as_array()[0].at("text").as_string() == ctx::kInterruptedTurnText);
  json::array messages = all_messages(repair);
  messages.push_back(text_message("user", "three"));
  check_alternation(messages);
}

TEST_CASE("a finished conversation is left exactly as it was") {
  const auto loaded = entries({text_message("system", "s"), text_message("user", "go"), two_calls(),
                               tool_result_message("c1", "x"), tool_result_message("c2", "y"),
                               text_message("assistant", "done"), text_message("system", "note")});
  const auto repair = ctx::repair_for_resume(loaded);
  CHECK_FALSE(repair.report.changed());
  CHECK(repair.tail.empty());
  REQUIRE(repair.history.size() == loaded.size());
  for (std::size_t i = 0; i < loaded.size(); ++i) CHECK(repair.history[i].message == loaded[i].message);
}

TEST_CASE("damaged lines: orphan results are dropped, unanswered calls answered in place") {
  // The assistant message of c9 was lost; c1's result was lost; c1's call is followed by a
  // later prompt.
  const auto repair = ctx::repair_for_resume(entries(
      {text_message("user", "one"), tool_call_message("c1", "ls"), text_message("user", "two"),
       tool_result_message("c9", "orphan"), text_message("assistant", "ok"),
       tool_call_message("c3", "ls"), tool_result_message("c3", "x"), tool_result_message("c3", "again")}));
  CHECK(repair.report.dropped_tool_results == 2);  // the orphan and the duplicate
  CHECK(repair.report.synthetic_tool_results == 1);
  const json::array messages = all_messages(repair);
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant", "tool", "user", "assistant",
                                                    "assistant", "tool", "assistant"});
  CHECK(messages[2].at("tool_call_id") == "c1");
}

TEST_CASE("unsigned thinking that says so (reasoning_field) goes back to the provider that "
          "wrote it, and only to it") {
  const Origin vllm{"local", "provider-chat-completions", "qwen3"};
  const json::object reasoning = json::parse(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"t","reasoning_field":"reasoning_content"},{"type":"text","text":"A"}]})").as_object();
  std::vector<ctx::Entry> history{{text_message("user", "q"), std::nullopt}, {reasoning, vllm}};
  const auto same = ctx::adapt_for_provider(history, Origin{"local", "provider-chat-completions", {}}, std::nullopt);
  CHECK(same.messages[1] == reasoning);
  CHECK(same.degradations.empty());
  const auto other = ctx::adapt_for_provider(history, Origin{"claude", "provider-anthropic", {}}, std::nullopt);
  CHECK(other.messages[1].at("content").as_array().size() == 1);
  REQUIRE(other.degradations.size() == 1);
  CHECK(other.degradations[0].feature == "thinking_without_signature");
}

TEST_CASE("cross-provider: foreign signed thinking and reasoning are left out, with degradations") {
  const Origin anthropic{"claude", "provider-anthropic", "claude-sonnet-4-5"};
  const Origin openai{"gpt", "provider-openai", "gpt-5"};
  const json::object from_claude = json::parse(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":"A"}]})").as_object();
  const json::object from_gpt = json::parse(
      R"({"role":"assistant","content":[{"type":"reasoning","content":[],"summary":[],"encrypted_content":"gAAA"},{"type":"tool_call","id":"c1","name":"ls","input":{}}]})").as_object();
  const json::object unsigned_thinking = json::parse(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"no signature"}]})").as_object();
  std::vector<ctx::Entry> history{{text_message("user", "q"), std::nullopt},
                                  {from_claude, anthropic},
                                  {text_message("user", "q2"), std::nullopt},
                                  {from_gpt, openai},
                                  {tool_result_message("c1", "x"), std::nullopt},
                                  {unsigned_thinking, anthropic}};

  SUBCASE("to Anthropic: the OpenAI reasoning goes, Anthropic's own signed thinking stays") {
    const auto adapted = ctx::adapt_for_provider(history, Origin{"claude", "provider-anthropic", {}}, std::nullopt);
    CHECK(adapted.messages[1] == from_claude);
    const auto &gpt_blocks = adapted.messages[3].at("content").as_array();
    REQUIRE(gpt_blocks.size() == 1);
    CHECK(gpt_blocks[0].at("type") == "tool_call");  // calls are never dropped
    // A message left empty keeps its place with a short text.
    CHECK(adapted.messages[5].at("content").as_array()[0].at("text").as_string() == ctx::kOmittedReasoningText);
    std::vector<std::string> features;
    for (const auto &d : adapted.degradations) features.push_back(d.feature);
    CHECK(features == std::vector<std::string>{"foreign_reasoning", "thinking_without_signature",
                                               "empty_assistant_message"});
    CHECK(adapted.degradations[0].extra.at("count") == 1);
    CHECK(adapted.degradations[0].reason.find("provider-openai") != std::string::npos);
  }
  SUBCASE("to OpenAI: Anthropic's thinking goes") {
    const auto adapted = ctx::adapt_for_provider(history, Origin{"gpt", "provider-openai", {}}, std::nullopt);
    CHECK(adapted.messages[1].at("content").as_array().size() == 1);
    CHECK(adapted.messages[3] == from_gpt);
    CHECK(adapted.degradations[0].feature == "foreign_thinking");
  }
  SUBCASE("the history itself is untouched") {
    (void)ctx::adapt_for_provider(history, Origin{"gpt", "provider-openai", {}}, std::nullopt);
    CHECK(history[1].message == from_claude);
  }
}

TEST_CASE("messages without origin: the fallback names the writer; with none they are trusted") {
  const json::object signed_thinking = json::parse(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"x"}]})").as_object();
  const std::vector<ctx::Entry> history{{signed_thinking, std::nullopt}};
  const Origin target{"claude", "provider-anthropic", {}};
  CHECK(ctx::adapt_for_provider(history, target, std::nullopt).degradations.empty());
  const auto adapted = ctx::adapt_for_provider(history, target, Origin{"mock", "provider-mock", {}});
  CHECK(adapted.messages[0].at("content").as_array().size() == 1);
  CHECK(adapted.degradations.size() == 1);
}
