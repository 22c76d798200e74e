// The price table and the pricing of one call (libs/cores/cost): the vendors' usage
// conventions, cache writes of both lifetimes, long prompts, dated model ids, overrides, and
// a model with no price, which stays unknown.
#include "amplifier/cost/ledger.hpp"
#include "amplifier/cost/prices.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace amplifier::cost;

namespace {

json::object usage(std::string_view text) { return json::parse(text).as_object(); }

double usd_of(std::string_view module, std::string_view model, std::string_view usage_json,
              const PriceTable &table = PriceTable::builtin()) {
  CallCost call = price_call(table, module, model, usage(usage_json));
  REQUIRE(call.usd.has_value());
  return *call.usd;
}

}  // namespace

TEST_CASE("Anthropic: input excludes the cache; reads, 5-minute and 1-hour writes each at their price") {
  // 1000 new input at $3, 500 output at $15, 2000 read at $0.30, 600 5-minute writes at
  // $3.75 and 400 1-hour writes at $6 (per million): 15,750 millionths.
  CHECK(usd_of("provider-anthropic", "claude-sonnet-4-5-20250929",
               R"({"input_tokens":1000,"output_tokens":500,"cache_read_tokens":2000,)"
               R"("cache_write_tokens":1000,"cache_write_1h_tokens":400})") ==
        doctest::Approx(0.01575));
  const Tokens t = tokens_of(usage(R"({"input_tokens":1000,"cache_read_tokens":2000,"cache_write_tokens":1000})"),
                             /*input_excludes_cache=*/true);
  CHECK(t.input == 1000);
  CHECK(t.total() == 4000);
}

TEST_CASE("OpenAI and Gemini: cached tokens are inside input_tokens, and counted once") {
  // 10,000 input of which 8,000 cached: 2,000 at $1.25, 8,000 at $0.125, 1,000 output at $10.
  CHECK(usd_of("provider-openai", "gpt-5.1-2025-11-13",
               R"({"input_tokens":10000,"output_tokens":1000,"cache_read_tokens":8000,)"
               R"("reasoning_tokens":600})") == doctest::Approx(0.0135));
  CallCost call = price_call(PriceTable::builtin(), "provider-openai", "gpt-5.1",
                             usage(R"({"input_tokens":10000,"output_tokens":1000,"cache_read_tokens":8000,"reasoning_tokens":600})"));
  CHECK(call.tokens.input == 2000);
  CHECK(call.tokens.reasoning == 600);
  CHECK(call.tokens.total() == 11000);  // reasoning is part of output, not added again
}

TEST_CASE("a prompt above a model's long-context threshold is priced at its long-context rates") {
  CHECK(usd_of("provider-gemini", "gemini-2.5-pro", R"({"input_tokens":300000,"output_tokens":1000})") ==
        doctest::Approx(0.765));
  CHECK(usd_of("provider-gemini", "gemini-2.5-pro", R"({"input_tokens":100000,"output_tokens":1000})") ==
        doctest::Approx(0.135));
}

TEST_CASE("a model with no price is unknown, never free; a near name is not taken for it") {
  const PriceTable &table = PriceTable::builtin();
  CHECK(table.find("gpt-5.1-codex") == nullptr);  // not a dated snapshot of gpt-5.1
  CHECK(table.find("claude-sonnet-4-5-preview") == nullptr);
  CHECK(table.find("qwen3:8b") == nullptr);
  CHECK(table.find("") == nullptr);
  CHECK(table.find("claude-sonnet-4-5-20250929") == table.find("claude-sonnet-4-5"));
  CHECK(table.find("claude-sonnet-4-20250514") == table.find("claude-sonnet-4"));

  CallCost call = price_call(table, "provider-ollama", "qwen3:8b",
                             usage(R"({"input_tokens":10,"output_tokens":5})"));
  CHECK_FALSE(call.usd.has_value());
  json::object j = to_json(call);
  CHECK(j.at("usd").is_null());
  CHECK(j.at("cost_unknown").as_bool());
  Totals totals;
  totals.add(call);
  CHECK(totals.unpriced_calls == 1);
  CHECK(to_json(totals).at("cost_unknown").as_bool());
}

TEST_CASE("overrides: an exact model, a tag of it, a '*' prefix; each entry checked and named") {
  PriceTable table = PriceTable::builtin().with(
      json::parse(R"({"qwen3": {"input": 0, "output": 0}, "mock*": {"input": 1000, "output": 2000},
                      "gpt-5.1": {"input": 2, "output": 20}})")
          .as_object());
  REQUIRE(table.find("qwen3:8b") != nullptr);
  CHECK(usd_of("provider-ollama", "qwen3:8b", R"({"input_tokens":10,"output_tokens":5})", table) == 0);
  CHECK(usd_of("provider-mock", "mock-model", R"({"input_tokens":10,"output_tokens":5})", table) ==
        doctest::Approx(0.02));
  // The override replaces the shipped entry whole: no cache price now, so reads cost input.
  CHECK(usd_of("provider-openai", "gpt-5.1", R"({"input_tokens":1000,"cache_read_tokens":1000})", table) ==
        doctest::Approx(0.002));

  auto error_of = [](std::string_view text) {
    try {
      (void)PriceTable::builtin().with(json::parse(text).as_object());
    } catch (const PriceError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(R"({"x": {"input": -1, "output": 1}})").find("pricing.x.input") != std::string::npos);
  CHECK(error_of(R"({"x": {"input": 1}})").find("pricing.x: 'input' and 'output' are required") !=
        std::string::npos);
  CHECK(error_of(R"({"x": {"input": 1, "output": 1, "cache_reads": 1}})").find("unknown key 'cache_reads'") !=
        std::string::npos);
  CHECK(error_of(R"({"x": 3})").find("pricing.x: expected a map") != std::string::npos);
  CHECK(error_of(R"({"*": {"input": 1, "output": 1}})").find("a model name is required") != std::string::npos);
  CHECK(error_of(R"({"x": {"input": 1, "output": 1, "long_context": {"input": 2, "output": 2}}})")
            .find("above_input_tokens") != std::string::npos);
}

TEST_CASE("the operator's prices come first, however specific a plan's entry for the model is") {
  const PriceTable plan = PriceTable::builtin().with(json::parse(
      R"({"claude-sonnet-4-5-20250929": {"input": 0, "output": 0}, "mock-model": {"input": 0, "output": 0}})")
                                                        .as_object());
  const PriceTable table = plan.behind(PriceTable().with(json::parse(
      R"({"claude-sonnet-4-5": {"input": 3, "output": 15}, "mock*": {"input": 1000, "output": 2000}})")
                                                             .as_object()));
  CHECK(usd_of("provider-anthropic", "claude-sonnet-4-5-20250929",
               R"({"input_tokens":1000000,"output_tokens":0})", table) == doctest::Approx(3));
  CHECK(usd_of("provider-mock", "mock-model", R"({"input_tokens":10,"output_tokens":5})", table) ==
        doctest::Approx(0.02));
  // What the operator does not price, the plan's and the shipped table's entries do.
  CHECK(usd_of("provider-openai", "gpt-5.1", R"({"input_tokens":1000000})", table) == doctest::Approx(1.25));
  // The vendors' usage conventions are the shipped table's, behind any layer.
  CHECK(table.input_excludes_cache("provider-anthropic"));
}

TEST_CASE("budgets: read and checked; money and tokens before each call, turns before each turn") {
  Budget b = budget_from_json(json::parse(R"({"max_cost_usd": 0.05, "max_turns": 2})"), "session.budget");
  CHECK(*b.max_cost_usd == 0.05);
  CHECK(*b.max_turns == 2);
  CHECK_FALSE(b.max_tokens);
  Budget loop = budget_from_json(json::parse(R"({"max_cost_usd": 0.01, "max_tokens": 100})"), "budget");
  Budget both = b.stricter(loop);
  CHECK(*both.max_cost_usd == 0.01);
  CHECK(*both.max_tokens == 100);
  CHECK(*both.max_turns == 2);

  auto error_of = [](std::string_view text) {
    try {
      (void)budget_from_json(json::parse(text), "session.budget");
    } catch (const PriceError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(R"({"max_cost": 1})").find("session.budget.max_cost: unknown limit") != std::string::npos);
  CHECK(error_of(R"({"max_turns": 0})").find("session.budget.max_turns") != std::string::npos);
  CHECK(error_of(R"({"max_tokens": 1.5})").find("whole number") != std::string::npos);
  CHECK(error_of(R"({"max_cost_usd": "5"})").find("amount in USD") != std::string::npos);
  CHECK(error_of("[1]").find("expected a map") != std::string::npos);

  Totals spent;
  spent.turns = 2;
  spent.usd = 0.04;
  CHECK_FALSE(first_exceeded(b, spent, /*starting_turn=*/false));  // a turn admitted goes on
  auto turn = first_exceeded(b, spent, /*starting_turn=*/true);
  REQUIRE(turn);
  CHECK(turn->limit == "max_turns");
  spent.usd = 0.05;  // spent to the cent: no further call
  auto money = first_exceeded(b, spent, /*starting_turn=*/false);
  REQUIRE(money);
  CHECK(money->limit == "max_cost_usd");
  // 0.04 of 0.05 is 80 %, whatever binary fractions say.
  spent.usd = 0.01 + 0.03;
  CHECK(measure(b, spent, false)[0].fraction() >= 0.8);
  // A call whose cost is unknown cannot be held to a money limit: it counts as reached.
  Totals unpriced;
  unpriced.unpriced_calls = 1;
  auto unknown = first_exceeded(b, unpriced, /*starting_turn=*/false);
  REQUIRE(unknown);
  CHECK(unknown->limit == "max_cost_usd");
  CHECK(to_json(*unknown).at("reason").as_string().find("no known price") != std::string::npos);
  CHECK_FALSE(first_exceeded(loop.stricter(Budget{}), Totals{}, false));
}

TEST_CASE("a ledger survives its JSON, and the transcript's last answer holds the session's") {
  Ledger ledger;
  ledger.session_id = "s1";
  ledger.own.calls = 2;
  ledger.own.turns = 1;
  ledger.own.usd = 0.04;
  ledger.own.tokens.input = 20;
  ledger.children.calls = 1;
  ledger.children.usd = 0.2;
  ledger.children.unpriced_calls = 1;
  const json::object j = to_json(ledger);
  CHECK(j.at("total").at("cost_usd").as_double() == doctest::Approx(0.24));
  CHECK(j.at("total").at("cost_unknown").as_bool());
  Ledger back = ledger_from_json(j);
  CHECK(back.own.calls == 2);
  CHECK(back.children.unpriced_calls == 1);
  CHECK(back.total().usd == doctest::Approx(0.24));
  // The stored form says the same in fewer bytes; a session without children leaves them out.
  Ledger stored = ledger_from_json(to_stored_json(ledger));
  CHECK(stored.session_id == "s1");
  CHECK(stored.own.calls == 2);
  CHECK(stored.own.tokens.input == 20);
  CHECK(stored.children.usd == doctest::Approx(0.2));
  CHECK(stored.children.unpriced_calls == 1);
  CHECK_FALSE(to_stored_json(Ledger{"s2", ledger.own, {}}).contains("children"));

  Ledger parents;
  parents.session_id = "parent";
  parents.own.calls = 7;
  json::array transcript{
      json::object{{"role", "assistant"}, {"metadata", json::object{{"ledger", to_json(Ledger{"s1", {}, {}})}}}},
      json::object{{"role", "assistant"}, {"metadata", json::object{{"ledger", j}}}},
      // A child's transcript starts with its parent's messages: their ledger is not its own.
      json::object{{"role", "assistant"}, {"metadata", json::object{{"ledger", to_json(parents)}}}},
      json::object{{"role", "user"}, {"content", "later"}}};
  CHECK(ledger_of_transcript(transcript, "s1").own.calls == 2);
  CHECK(ledger_of_transcript(transcript, "parent").own.calls == 7);
  CHECK(ledger_of_transcript(transcript, "child").own.calls == 0);
  CHECK(ledger_of_transcript(json::array{}, "s1").own.calls == 0);
  // Malformed figures read as nothing, never as a negative spend; huge ones stop at 2^53 and
  // totals saturate instead of wrapping around.
  Ledger odd = ledger_from_json(json::parse(
      R"({"session": {"calls": -5, "turns": 18446744073709551615, "cost_usd": -1,
                      "tokens": {"input": 1e30, "output": -3}}})"));
  CHECK(odd.own.calls == 0);
  CHECK(odd.own.usd == 0);
  CHECK(odd.own.turns == 9007199254740992);
  CHECK(odd.own.tokens.input == 9007199254740992);
  CHECK(odd.own.tokens.output == 0);
  Totals many = odd.own;
  for (int i = 0; i < 2000; ++i) many.add(odd.own);
  CHECK(many.turns > 0);
  CHECK(many.tokens.total() > 0);
}
