// context-simple through a real Session: validation, lossless storage, replacement, threads.
#include "module_test_support.hpp"

#include <thread>

using namespace modtest;

namespace {

// Direct access to the mounted context module's table, as the host would call it.
class ContextHandle {
 public:
  explicit ContextHandle(amplifier::Session &session) : m_(*session.coordinator().context()) {}

  amp_status add(std::string_view message_json) {
    return table()->add_message(m_.instance, amp::sdk::to_amp(message_json));
  }
  json::array messages() {
    amp::sdk::StringWriter out;
    REQUIRE(table()->get_messages(m_.instance, &out) == AMP_OK);
    return json::parse(out.text).as_array();
  }
  std::string messages_text() {
    amp::sdk::StringWriter out;
    REQUIRE(table()->get_messages(m_.instance, &out) == AMP_OK);
    return out.text;
  }
  json::array for_request(std::string_view hints) {
    amp::sdk::StringWriter out;
    REQUIRE(table()->get_messages_for_request(m_.instance, amp::sdk::to_amp(hints), &out) == AMP_OK);
    return json::parse(out.text).as_array();
  }
  amp_status set(std::string_view messages_json) {
    return table()->set_messages(m_.instance, amp::sdk::to_amp(messages_json));
  }
  amp_status clear() { return table()->clear(m_.instance); }

 private:
  const amp_context_vtable *table() { return m_.table<amp_context_vtable>(); }
  amplifier::MountedModule &m_;
};

std::string context_plan(const std::string &config = "{}") {
  return "session:\n  orchestrator: loop-basic\n  context:\n    module: context-simple\n    config: " +
         config + "\n";
}

}  // namespace

TEST_CASE("context-simple stores valid messages losslessly and refuses invalid ones") {
  LogCapture log;
  auto session = open_session(context_plan(R"({"max_tokens": 100000, "compact_threshold": 0.8})"));
  ContextHandle context(*session);

  // Fields and block types the model library does not know survive unchanged.
  const std::string rich =
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s1"},)"
      R"({"type":"future_block","payload":{"x":[1,2.5,"é"]}},{"type":"text","text":"hi","vendor_flag":true}],)"
      R"("metadata":{"provider":"mock"},"x_custom":"kept"})";
  REQUIRE(context.add(R"({"role":"user","content":"hello"})") == AMP_OK);
  REQUIRE(context.add(rich) == AMP_OK);
  auto stored = context.messages();
  REQUIRE(stored.size() == 2);
  CHECK(stored[1] == json::parse(rich));

  CHECK(context.add(R"({"role":"robot","content":"beep"})") != AMP_OK);
  CHECK(context.add(R"({"content":"no role"})") != AMP_OK);
  CHECK(context.add(R"(["not", "an", "object"])") != AMP_OK);
  CHECK(context.add(R"({"role":"user","content":)") != AMP_OK);
  CHECK(context.messages().size() == 2);
  CHECK(!log.containing("robot").empty());  // the reason reaches the log
}

TEST_CASE("context-simple: for_request, set_messages and clear") {
  auto session = open_session(context_plan());
  ContextHandle context(*session);
  REQUIRE(context.add(R"({"role":"user","content":"one"})") == AMP_OK);
  REQUIRE(context.add(R"({"role":"assistant","content":"two"})") == AMP_OK);

  CHECK(context.for_request("") == context.messages());
  CHECK(context.for_request(R"({"provider":"provider-mock","context_window":200000})") == context.messages());

  const std::string replacement = R"([{"role":"system","content":"be brief"},{"role":"user","content":"three"}])";
  REQUIRE(context.set(replacement) == AMP_OK);
  CHECK(context.messages() == json::parse(replacement));

  // An invalid list replaces nothing.
  CHECK(context.set(R"([{"role":"user","content":"ok"},{"role":"nobody"}])") != AMP_OK);
  CHECK(context.set(R"({"role":"user"})") != AMP_OK);
  CHECK(context.messages() == json::parse(replacement));

  REQUIRE(context.clear() == AMP_OK);
  CHECK(context.messages().empty());
}

TEST_CASE("context-simple is safe under concurrent writers and readers") {
  auto session = open_session(context_plan());
  ContextHandle context(*session);
  constexpr int kThreads = 8, kPerThread = 200;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string message = json::serialize(
            json::object{{"role", "user"}, {"content", std::to_string(t) + ":" + std::to_string(i)}});
        if (context.add(message) != AMP_OK) ++failures;
        if (i % 50 == 0) (void)context.messages_text();
      }
    });
  }
  for (auto &t : threads) t.join();
  CHECK(failures == 0);
  auto messages = context.messages();
  CHECK(messages.size() == kThreads * kPerThread);
  // Each writer's messages keep their order.
  std::vector<int> next(kThreads, 0);
  bool ordered = true;
  for (const auto &m : messages) {
    const std::string content(m.at("content").as_string());
    const int t = std::stoi(content.substr(0, content.find(':')));
    const int i = std::stoi(content.substr(content.find(':') + 1));
    ordered = ordered && i == next[t]++;
  }
  CHECK(ordered);
}

TEST_CASE("context-simple config: bad values are fatal, unknown keys warned") {
  SUBCASE("a bad value fails the session, naming the key") {
    LogCapture log;
    CHECK_THROWS_WITH_AS(open_session(context_plan(R"({"compact_threshold": 2})")),
                         doctest::Contains("'compact_threshold' must be between 0 and 1, got 2"),
                         amplifier::SessionError);
  }
  SUBCASE("an unknown key is warned about with a suggestion") {
    LogCapture log;
    auto session = open_session(context_plan(R"({"max_token": 10})"));
    CHECK(log.containing("unknown key 'max_token' is ignored (did you mean 'max_tokens'?)").size() == 1);
  }
}
