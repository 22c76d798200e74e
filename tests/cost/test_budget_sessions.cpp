// The agent loop's ledger and budget in real sessions (loop-basic and loop-streaming over
// provider-mock, whose answers report usage): every answer stores its usage, cost and the
// session's ledger; a budget ends the turn before the provider call that would pass it, with
// budget:warning at 80 % first; a turn the budget no longer allows does not start.
#include "session_harness.hpp"

#include "amplifier/cost/ledger.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using amp_test::EventLog;

namespace {

// Each mock answer: 10 in, 5 out; "mock*" priced at $1000 / $2000 per million: $0.02 each.
constexpr std::string_view kUsage = "usage: {input_tokens: 10, output_tokens: 5, total_tokens: 15}";

std::string plan(const std::string &budget, const std::string &responses,
                 const std::string &loop = "loop-basic", const std::string &pricing =
                     R"("mock*": {input: 1000, output: 2000})") {
  return "session:\n  orchestrator: " + loop + "\n  context: context-simple\n" +
         (budget.empty() ? "" : "  budget: " + budget + "\n") +
         (pricing.empty() ? "" : "  pricing: {" + pricing + "}\n") +
         "providers:\n  - module: provider-mock\n    config: {responses: [" + responses + "]}\n";
}

// A response calling a tool that is not mounted (the loop answers it with an error result and
// goes on), and a text answer; each with kUsage.
std::string tool_step() {
  return "{tool_calls: [{name: missing_tool, input: {}}], " + std::string(kUsage) + "}";
}
std::string text_step(const std::string &text) {
  return "{text: " + text + ", " + std::string(kUsage) + "}";
}

}  // namespace

TEST_CASE("each answer stores its usage, its cost and the session's ledger; ledger:update says so") {
  auto session = amp_test::make_session(plan("", tool_step() + ", " + text_step("done")));
  EventLog events(session->hooks());
  session->initialize();
  auto result = session->execute("go");
  REQUIRE(result.status == "success");

  const auto updates = events.payloads("ledger:update");
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].at("call").at("usd").as_double() == doctest::Approx(0.02));
  CHECK(updates[0].at("call").at("model").as_string() == "mock-model");
  CHECK(updates[1].at("turn").at("calls").as_int64() == 2);
  CHECK(updates[1].at("ledger").at("session").at("cost_usd").as_double() == doctest::Approx(0.04));
  CHECK(updates[1].at("ledger").at("session").at("turns").as_int64() == 1);

  json::array messages = amp_test::transcript(*session);
  const json::object &last = messages.back().as_object();
  REQUIRE(last.at("role").as_string() == "assistant");
  const json::object &metadata = last.at("metadata").as_object();
  CHECK(metadata.at("usage").at("input_tokens").as_int64() == 10);
  CHECK(metadata.at("cost").at("usd").as_double() == doctest::Approx(0.02));
  const amplifier::cost::Ledger stored = amplifier::cost::ledger_from_json(metadata.at("ledger"));
  CHECK(stored.total().calls == 2);
  CHECK(stored.total().usd == doctest::Approx(0.04));
  CHECK(stored.own.tokens.output == 10);
  // Kept small: it goes into every later request with the message.
  CHECK(json::serialize(metadata.at("ledger")).size() < 120);
  // The model is never shown any of it: the provider gets the content only.
  CHECK(events.count("budget:warning") == 0);
}

TEST_CASE("a budget ends the turn before the call that would pass it, warning at 80 % first") {
  for (const std::string loop : {"loop-basic", "loop-streaming"}) {
    CAPTURE(loop);
    // $0.02 a call, $0.05 allowed: the third call starts at $0.04 (80 %, warned), and the
    // fourth is never made.
    auto session = amp_test::make_session(
        plan("{max_cost_usd: 0.05}",
             tool_step() + ", " + tool_step() + ", " + tool_step() + ", " + text_step("never"), loop));
    EventLog events(session->hooks());
    session->initialize();
    auto result = session->execute("go");
    CHECK(result.status == "budget_exceeded");
    CHECK(result.response.find("max_cost_usd") != std::string::npos);
    CHECK(events.count("provider:request") == 3);
    CHECK(events.count("ledger:update") == 3);

    const auto warnings = events.payloads("budget:warning");
    REQUIRE(warnings.size() == 1);  // once, though two calls were past 80 %
    CHECK(warnings[0].at("limit").as_string() == "max_cost_usd");
    CHECK(warnings[0].at("used").as_double() == doctest::Approx(0.04));
    const auto exceeded = events.payloads("budget:exceeded");
    REQUIRE(exceeded.size() == 1);
    CHECK(exceeded[0].at("used").as_double() == doctest::Approx(0.06));
    CHECK(exceeded[0].at("max").as_double() == doctest::Approx(0.05));
    CHECK(events.index_of("budget:warning") < events.index_of("budget:exceeded"));
    // The last request came before the budget ran out, never after.
    CHECK(events.index_of("budget:exceeded") > events.index_of("ledger:update"));

    // The transcript is whole: every call has its result, and it ends with the assistant.
    json::array messages = amp_test::transcript(*session);
    CHECK(amp_test::transcript_problems(messages).empty());
    CHECK(amp_test::roles(messages).back() == "assistant");
    CHECK(amp_test::dump(messages).find("budget is reached") != std::string::npos);
  }
}

TEST_CASE("a turn the budget no longer allows does not start, and its prompt is not stored") {
  auto session = amp_test::make_session(
      plan("{max_turns: 1}", text_step("one") + ", " + text_step("two")));
  EventLog events(session->hooks());
  session->initialize();
  CHECK(session->execute("first").status == "success");
  auto second = session->execute("second");
  CHECK(second.status == "budget_exceeded");
  CHECK(second.response.find("max_turns") != std::string::npos);
  CHECK(events.count("provider:request") == 1);
  CHECK(amp_test::dump(amp_test::transcript(*session)).find("second") == std::string::npos);
}

TEST_CASE("max_tokens counts every kind of token; the loop's own budget and the plan's: the stricter") {
  // Plan: 1000 tokens; the loop's: 40. Each call uses 15: the third call starts at 30 (75 %,
  // no warning yet), and after it (45) no fourth is made.
  const std::string yaml =
      "session:\n  orchestrator: {module: loop-basic, config: {budget: {max_tokens: 40}}}\n"
      "  context: context-simple\n  budget: {max_tokens: 1000}\n"
      "providers:\n  - module: provider-mock\n    config: {responses: [" +
      tool_step() + ", " + tool_step() + ", " + tool_step() + ", " + text_step("never") + "]}\n";
  auto session = amp_test::make_session(yaml);
  EventLog events(session->hooks());
  session->initialize();
  auto result = session->execute("go");
  CHECK(result.status == "budget_exceeded");
  CHECK(events.count("provider:request") == 3);
  const auto exceeded = events.payloads("budget:exceeded");
  REQUIRE(exceeded.size() == 1);
  CHECK(exceeded[0].at("limit").as_string() == "max_tokens");
  CHECK(exceeded[0].at("used").as_int64() == 45);
  CHECK(exceeded[0].at("max").as_int64() == 40);
}

TEST_CASE("a model with no price: the cost is unknown, never $0") {
  auto session = amp_test::make_session(plan("", text_step("hi"), "loop-basic", ""));
  EventLog events(session->hooks());
  session->initialize();
  CHECK(session->execute("go").status == "success");
  const auto updates = events.payloads("ledger:update");
  REQUIRE(updates.size() == 1);
  CHECK(updates[0].at("call").at("usd").is_null());
  CHECK(updates[0].at("call").at("cost_unknown").as_bool());
  CHECK(updates[0].at("ledger").at("total").at("cost_unknown").as_bool());
  CHECK(updates[0].at("ledger").at("total").at("unpriced_calls").as_int64() == 1);
}

TEST_CASE("a money budget does not let an unpriced model run on: the turn ends after its first call") {
  auto session = amp_test::make_session(
      plan("{max_cost_usd: 100}", tool_step() + ", " + text_step("never"), "loop-basic", ""));
  EventLog events(session->hooks());
  session->initialize();
  auto result = session->execute("go");
  CHECK(result.status == "budget_exceeded");
  CHECK(result.response.find("no known price") != std::string::npos);
  CHECK(events.count("provider:request") == 1);
  const auto exceeded = events.payloads("budget:exceeded");
  REQUIRE(exceeded.size() == 1);
  CHECK(exceeded[0].at("unpriced_calls").as_int64() == 1);
}

TEST_CASE("a bad budget or price in the plan stops the session from starting, naming the entry") {
  auto bad_budget = amp_test::make_session(plan("{max_cost: 5}", text_step("hi")));
  CHECK_THROWS_WITH_AS(bad_budget->initialize(),
                       doctest::Contains("session.budget.max_cost: unknown limit"),
                       amplifier::SessionError);
  auto bad_price = amp_test::make_session(
      plan("", text_step("hi"), "loop-basic", R"("mock*": {input: -3, output: 1})"));
  CHECK_THROWS_WITH_AS(bad_price->initialize(), doctest::Contains("pricing.mock*.input"),
                       amplifier::SessionError);
  auto bad_loop_budget = amp_test::make_session(
      "session:\n  orchestrator: {module: loop-basic, config: {budget: {max_turns: -1}}}\n"
      "  context: context-simple\nproviders:\n  - module: provider-mock\n");
  CHECK_THROWS_WITH_AS(bad_loop_budget->initialize(), doctest::Contains("budget.max_turns"),
                       amplifier::SessionError);
}
