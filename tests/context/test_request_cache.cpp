// The request fast path: each stored message is serialised once, so a request is the stored
// texts joined: byte for byte what serialising the history gives. What a target cannot take
// still goes (per target), and replacing or clearing the history drops the cached texts.
#include "context_test_support.hpp"

using namespace ctxtest;

namespace {

const std::string kPlan =
    "session:\n  orchestrator: loop-basic\n  context: context-simple\n" + mock_provider();

// The raw text the context hands out for a request.
std::string request_text(amplifier::Session &session, std::string_view hints) {
  auto &m = *session.coordinator().context();
  amp::sdk::StringWriter out;
  REQUIRE(m.table<amp_context_vtable>()->get_messages_for_request(m.instance, amp::sdk::to_amp(hints),
                                                                  &out) == AMP_OK);
  return out.text;
}

json::object thinking_answer() {
  return json::object{
      {"role", "assistant"},
      {"content", json::array{json::object{{"type", "thinking"},
                                           {"thinking", "pondering \"quotes\" and \xc3\xa9"},
                                           {"signature", "c2lnbmF0dXJl"}},
                              json::object{{"type", "text"}, {"text", "line\nbreak"}}}}};
}

}  // namespace

TEST_CASE("a request is the stored messages, serialised once, byte for byte") {
  auto open = open_session(kPlan, "cache-bytes");
  ContextHandle context(*open.session);
  const std::string hints = R"({"provider":"provider-mock"})";
  context.add_ok(text_message("user", "first \xe2\x82\xac"));
  (void)request_text(*open.session, hints);  // the mock is now the one answering
  context.add_ok(thinking_answer());
  context.add_ok(tool_call_message("call_1", "read_file"));
  context.add_ok(tool_result_message("call_1", "contents\twith tab"));
  const std::string first = request_text(*open.session, hints);
  CHECK(first == json::serialize(json::parse(first)));  // Boost's own serialisation
  CHECK(json::parse(first).as_array() == context.messages());
  context.add_ok(text_message("user", "second"));
  const std::string second = request_text(*open.session, hints);
  // The earlier messages are the very same text; only the new one was added.
  CHECK(second.substr(0, first.size() - 1) == first.substr(0, first.size() - 1));
  CHECK(json::parse(second).as_array().size() == 5);
}

TEST_CASE("per target: a provider that cannot take a block still has it left out") {
  auto open = open_session(kPlan, "cache-targets");
  ContextHandle context(*open.session);
  context.add_ok(text_message("user", "q"));
  (void)request_text(*open.session, R"({"provider":"provider-mock"})");
  context.add_ok(thinking_answer());
  context.add_ok(text_message("user", "again"));
  const json::array own = json::parse(request_text(*open.session, R"({"provider":"provider-mock"})")).as_array();
  CHECK(own[1].at("content").as_array().size() == 2);  // the author gets its thinking back
  // Another provider: the mock's signed thinking is not theirs to verify.
  const json::array other = json::parse(request_text(*open.session, R"({"provider":"someone-else"})")).as_array();
  REQUIRE(other.size() == 3);
  const auto &blocks = other[1].at("content").as_array();
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].at("type") == "text");
  CHECK(open.events->payloads("context:degraded").size() == 1);
  // And back to the author: unchanged again.
  CHECK(json::parse(request_text(*open.session, R"({"provider":"provider-mock"})")).as_array() == own);
}

TEST_CASE("set_messages and clear drop the cached texts with the history") {
  auto open = open_session(kPlan, "cache-replace");
  ContextHandle context(*open.session);
  const std::string hints = R"({"provider":"provider-mock"})";
  context.add_ok(text_message("user", "old"));
  CHECK(request_text(*open.session, hints).find("old") != std::string::npos);
  REQUIRE(context.set(json::serialize(json::array{text_message("user", "new")})) == AMP_OK);
  const std::string replaced = request_text(*open.session, hints);
  CHECK(replaced.find("old") == std::string::npos);
  CHECK(replaced.find("new") != std::string::npos);
  auto &m = *open.session->coordinator().context();
  REQUIRE(m.table<amp_context_vtable>()->clear(m.instance) == AMP_OK);
  CHECK(request_text(*open.session, hints) == "[]");
}
