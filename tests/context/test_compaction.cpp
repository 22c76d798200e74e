// Compaction and the token budget (context-core), as pure functions.
#include "context_test_support.hpp"

#include "amplifier/context/budget_settings.hpp"
#include "amplifier/context/compaction.hpp"
#include "amplifier/context/token_estimate.hpp"

using namespace ctxtest;
namespace ctx = amplifier::context;

namespace {

std::string big(std::size_t chars, char fill = 'x') { return std::string(chars, fill); }

// A conversation of `turns` turns, each: prompt, tool call, big result, answer.
json::array conversation(int turns, std::size_t result_chars) {
  json::array messages{text_message("system", "You are helpful.")};
  for (int t = 0; t < turns; ++t) {
    const std::string n = std::to_string(t);
    messages.push_back(text_message("user", "question " + n));
    messages.push_back(tool_call_message("call_" + n, "read_file", "reading " + n));
    messages.push_back(tool_result_message("call_" + n, big(result_chars, static_cast<char>('a' + t % 26))));
    messages.push_back(text_message("assistant", "answer " + n));
  }
  return messages;
}

// Every tool call in `messages` is followed by its results, and every result has its call.
void check_pairs_together(const json::array &messages) {
  std::set<std::string> open;
  for (const auto &m : messages) {
    const std::string role(m.at("role").as_string());
    if (role == "tool") {
      const std::string id(m.at("tool_call_id").as_string());
      CHECK_MESSAGE(open.count(id) == 1, "result " << id << " without its call");
      open.erase(id);
      continue;
    }
    CHECK_MESSAGE(open.empty(), "a call left without its result");
    if (const auto *blocks = m.at("content").if_array())
      for (const auto &b : *blocks)
        if (b.at("type") == "tool_call") open.insert(std::string(b.at("id").as_string()));
  }
}

std::int64_t tokens(const json::array &messages) { return ctx::estimate_request_tokens(messages, 0); }

}  // namespace

TEST_CASE("estimates follow the serialised size; usage teaches the overhead") {
  const json::value message = text_message("user", big(4000));
  const std::int64_t estimate = ctx::estimate_message_tokens(message);
  CHECK(estimate >= 1000);
  CHECK(estimate <= 1010);
  CHECK(ctx::serialized_chars(message) == json::serialize(message).size());

  ctx::UsageCalibration calibration;
  calibration.usage_reported(5000);  // no request sent yet: nothing to compare with
  CHECK(calibration.overhead() == 0);
  calibration.request_sent(1000);
  calibration.usage_reported(1800);
  CHECK(calibration.overhead() == 800);
  calibration.usage_reported(900);  // fewer than estimated: never a negative overhead
  CHECK(calibration.overhead() == 0);

  CHECK(ctx::prompt_tokens_of_usage(json::parse(R"({"input_tokens":10,"output_tokens":5,"total_tokens":95})").as_object()) == 90);
  CHECK(ctx::prompt_tokens_of_usage(json::parse(R"({"input_tokens":10,"cache_read_tokens":70})").as_object()) == 80);
  CHECK_FALSE(ctx::prompt_tokens_of_usage(json::parse(R"({"output_tokens":5})").as_object()));
}

TEST_CASE("the budget: window minus output reserve, from hints, then provider, then config") {
  ctx::BudgetSettings settings;  // max_tokens 200000, threshold 0.92, target 0.75, reserve 4096
  SUBCASE("hints win") {
    auto budget = ctx::compute_budget(settings, 100000, 10000, {200000, 8000});
    CHECK(budget.budget == 90000);
    CHECK(budget.trigger == 82800);
    CHECK(budget.target == 67500);
  }
  SUBCASE("the provider's defaults next, and the configured reserve last") {
    CHECK(ctx::compute_budget(settings, std::nullopt, std::nullopt, {50000, 8000}).budget == 42000);
    CHECK(ctx::compute_budget(settings, std::nullopt, std::nullopt, {50000, std::nullopt}).budget == 45904);
  }
  SUBCASE("no window: config max_tokens; a configured max_tokens also caps a window") {
    CHECK(ctx::compute_budget(settings, std::nullopt, std::nullopt, {}).budget == 200000);
    settings.max_tokens = 1000;
    settings.max_tokens_configured = true;
    CHECK(ctx::compute_budget(settings, 100000, 1000, {}).budget == 1000);
  }
}

TEST_CASE("budget settings: compact_target may not exceed compact_threshold") {
  amplifier::module_support::ConfigReader bad(R"({"compact_threshold":0.5,"compact_target":0.8})", "test config");
  CHECK_THROWS_WITH(ctx::read_budget_settings(bad), doctest::Contains("compact_target"));
  amplifier::module_support::ConfigReader defaulted(R"({"compact_threshold":0.5})", "test config");
  CHECK(ctx::read_budget_settings(defaulted).compact_target == doctest::Approx(0.5));
}

TEST_CASE("stage 1 truncates the oldest tool results and keeps the latest round whole") {
  json::array messages = conversation(3, 20000);
  // The current turn: a prompt, a call, its (big) result; the model is about to read it.
  messages.push_back(text_message("user", "question now"));
  messages.push_back(tool_call_message("call_now", "read_file"));
  messages.push_back(tool_result_message("call_now", big(20000, 'z')));
  const json::array original = messages;

  const auto result = ctx::compact_messages(messages, {tokens(messages) - 10000, 0});
  CHECK(messages == original);  // the input is never edited
  CHECK(result.report.stages == std::vector<std::string>{"truncate_tool_results"});
  CHECK(result.report.dropped_messages == 0);
  CHECK(result.report.truncated_tool_results >= 1);
  CHECK(result.report.within_target);
  CHECK(result.messages.size() == messages.size());
  const std::string first_output(result.messages[3].at("content").as_array()[0].at("output").as_string());
  CHECK(first_output.size() < 1000);
  CHECK(first_output.find("left out to fit the context window") != std::string::npos);
  CHECK(result.messages.back() == original.back());  // the latest result is whole
  CHECK(result.report.tokens_after < result.report.tokens_before);
}

TEST_CASE("stage 2 drops whole old turns: system messages, the last turn and pairs stay") {
  const json::array messages = conversation(6, 400);
  const std::int64_t per_turn = tokens(json::array(messages.begin() + 1, messages.begin() + 5));
  const auto result = ctx::compact_messages(messages, {tokens(messages) - 3 * per_turn, 0});
  CHECK(std::find(result.report.stages.begin(), result.report.stages.end(), "drop_old_turns") !=
        result.report.stages.end());
  CHECK(result.report.dropped_messages % 4 == 0);  // whole turns only
  CHECK(result.report.within_target);
  CHECK(result.messages[0] == messages[0]);  // the system message
  CHECK(result.messages[1].at("role") == "user");
  CHECK(result.messages.back() == messages.back());
  CHECK(result.messages[result.messages.size() - 4] == messages[messages.size() - 4]);  // last prompt
  check_pairs_together(result.messages);
  check_alternation(result.messages);
}

TEST_CASE("stage 3 drops old tool rounds of one long turn, never the latest round") {
  json::array messages{text_message("system", "sys"), text_message("user", "do many things")};
  for (int r = 0; r < 6; ++r) {
    messages.push_back(tool_call_message("r" + std::to_string(r), "step"));
    messages.push_back(tool_result_message("r" + std::to_string(r), big(3000)));
  }
  // Room for the system message, the prompt and about one full round.
  const std::int64_t target = tokens(json::array(messages.begin(), messages.begin() + 4)) + 50;
  const auto result = ctx::compact_messages(messages, {target, 0});
  CHECK(result.report.within_target);
  CHECK(result.report.stages.back() == "drop_old_tool_rounds");
  CHECK(result.messages[0] == messages[0]);
  CHECK(result.messages[1] == messages[1]);
  CHECK(result.messages[result.messages.size() - 2] == messages[messages.size() - 2]);
  CHECK(result.messages.back() == messages.back());
  check_pairs_together(result.messages);
}

TEST_CASE("when even the last turn is too big, compaction says so and keeps it") {
  json::array messages{text_message("user", "old"), text_message("assistant", "ok"),
                       text_message("user", big(40000))};
  const auto result = ctx::compact_messages(messages, {100, 0});
  CHECK_FALSE(result.report.within_target);
  REQUIRE(result.messages.size() == 1);
  CHECK(result.messages[0] == messages[2]);
}

TEST_CASE("context-simple compacts requests through the same engine, storage untouched") {
  const std::string plan = "session:\n  orchestrator: loop-basic\n  context:\n    module: context-simple\n"
                           "    config: {max_tokens: 2000}\n" + mock_provider();
  auto open = open_session(plan, "simple-compaction");
  ContextHandle context(*open.session);
  for (int turn = 0; turn < 10; ++turn) {
    const std::string n = std::to_string(turn);
    context.add_ok(text_message("user", "question " + n));
    context.add_ok(tool_call_message("call_" + n, "read_file"));
    context.add_ok(tool_result_message("call_" + n, big(1500)));
    context.add_ok(text_message("assistant", "answer " + n));
  }
  context.add_ok(text_message("user", "last"));
  const json::array stored = context.messages();
  const json::array request = context.for_request(R"({"provider":"provider-mock"})");
  CHECK(request.size() < stored.size());
  CHECK(context.messages() == stored);
  check_pairs_together(request);
  check_alternation(request);
  const auto post = open.events->payloads("context:post_compact");
  REQUIRE(post.size() == 1);
  CHECK(post[0].at("messages_after") == request.size());
}

TEST_CASE("real usage from provider:response teaches the engine the request's overhead") {
  // tool-filesystem's tool specs travel in every request but in no message: only the usage the
  // provider reports can reveal them.
  const std::string plan = "session:\n  orchestrator: loop-basic\n  context: context-simple\n" +
                           mock_provider() +
                           "tools:\n  - module: tool-filesystem\n    config: {allowed_read_paths: [\".\"]}\n";
  auto open = open_session(plan, "usage-calibration");
  REQUIRE(open.session->execute("list the files").status == "success");
  ContextHandle context(*open.session);
  const json::array messages = context.messages();
  // A window so small that the request is compacted, which makes the estimate visible.
  (void)context.for_request(R"({"provider":"provider-mock","context_window":200,"max_output_tokens":10})");
  const auto pre = open.events->payloads("context:pre_compact");
  REQUIRE(pre.size() == 1);
  const std::int64_t estimate = pre[0].at("estimated_tokens").to_number<std::int64_t>();
  CHECK(estimate > ctx::estimate_request_tokens(messages, 0) + 50);
}
