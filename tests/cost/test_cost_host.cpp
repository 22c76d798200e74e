// The ledger through the real binary: carried across `run --resume`, shown by `sessions show`,
// a child session's cost rolled into its parent's, and the operator's prices laid over a
// plan's (a downloaded plan that prices its model at 0 cannot slip past a budget).
#include "host_process.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

using amp_host_test::run_amplifier;
using amp_host_test::Scratch;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAnswer =
    "{text: fine, usage: {input_tokens: 10, output_tokens: 5, total_tokens: 15}}";

std::string persistent_plan(const std::string &session_extra) {
  std::string responses;
  for (int i = 0; i < 6; ++i) responses += (i ? ", " : "") + std::string(kAnswer);
  return "session:\n  orchestrator: loop-basic\n"
         "  context: {module: context-persistent, config: {store_dir: ./sessions}}\n" +
         session_extra + "providers:\n  - module: provider-mock\n    config: {responses: [" +
         responses + "]}\n";
}

// The events of a `run --format jsonl`, by name.
std::vector<json::object> events_named(const std::string &jsonl, std::string_view name) {
  std::vector<json::object> out;
  for (const auto &line : amp_test::lines_of(jsonl)) {
    if (line.empty()) continue;
    json::value v = json::parse(line);
    if (v.at("event").as_string() == name) out.push_back(v.at("data").as_object());
  }
  return out;
}

std::string session_id_of(const std::string &jsonl) {
  auto starts = events_named(jsonl, "session:start");
  REQUIRE(!starts.empty());
  return std::string(starts[0].at("session_id").as_string());
}

}  // namespace

TEST_CASE("the ledger carries across --resume, a budget holds across runs, and sessions show prints it") {
  Scratch s;
  auto file = s.write("plan.yaml", persistent_plan("  budget: {max_cost_usd: 0.05}\n"
                                                   "  pricing: {\"mock*\": {input: 1000, output: 2000}}\n"));
  auto o = s.options();
  auto first = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "one"}, o);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string id = session_id_of(first.out);
  // $0.02 a turn: the second run ends at $0.04, the third starts below $0.05 and ends at $0.06.
  for (int turn = 2; turn <= 3; ++turn) {
    auto again = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "--resume", id,
                                "turn " + std::to_string(turn)},
                               o);
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    auto updates = events_named(again.out, "ledger:update");
    REQUIRE(updates.size() == 1);
    CHECK(updates[0].at("ledger").at("session").at("turns").as_int64() == turn);
    CHECK(updates[0].at("ledger").at("session").at("cost_usd").as_double() ==
          doctest::Approx(0.02 * turn));
  }
  auto refused = run_amplifier({"run", "--plan", file.string(), "--resume", id, "four"}, o);
  CHECK(refused.exit_code == 3);
  CHECK(refused.err.find("budget is reached (max_cost_usd: 0.06 used of 0.05)") != std::string::npos);
  CHECK(refused.out.find("fine") == std::string::npos);

  auto shown = run_amplifier({"sessions", "show", "--store", (s.dir / "sessions").string(), id}, o);
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("cost $0.0600: this session $0.0600 (3 calls, 3 turns)") != std::string::npos);
  CHECK(shown.out.find("tokens 45: input 30, output 15, cache read 0, cache write 0") !=
        std::string::npos);
}

TEST_CASE("a plan that prices its model at 0 does not get past a budget: the operator's prices win") {
  Scratch s;
  // The plan (perhaps downloaded) says the model is free; the operator's settings say not.
  auto file = s.write("plan.yaml", persistent_plan("  budget: {max_cost_usd: 0.03}\n"
                                                   "  pricing: {\"mock*\": {input: 0, output: 0}}\n"));
  s.write("home/.config/amplifier/settings.yaml",
          "pricing:\n  mock-model: {input: 1000, output: 2000}\n");
  auto o = s.options();
  auto first = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "one"}, o);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  auto updates = events_named(first.out, "ledger:update");
  REQUIRE(updates.size() == 1);
  CHECK(updates[0].at("call").at("usd").as_double() == doctest::Approx(0.02));
  // Nor does naming the operator's own key in the plan.
  auto sneaky = s.write("sneaky.yaml", persistent_plan(
      "  operator_pricing: {\"mock*\": {input: 0, output: 0}}\n"
      "  pricing: {mock-model-20991231: {input: 0, output: 0}, mock-model: {input: 0, output: 0}}\n"));
  auto sneaked = run_amplifier({"run", "--plan", sneaky.string(), "--format", "jsonl", "one"}, o);
  REQUIRE(sneaked.exit_code == 0);
  auto sneaked_updates = events_named(sneaked.out, "ledger:update");
  REQUIRE(sneaked_updates.size() == 1);
  CHECK(sneaked_updates[0].at("call").at("usd").as_double() == doctest::Approx(0.02));
  const std::string id = session_id_of(first.out);
  auto second = run_amplifier({"run", "--plan", file.string(), "--resume", id, "two"}, o);
  CHECK(second.exit_code == 0);  // starts at $0.02 of $0.03
  auto third = run_amplifier({"run", "--plan", file.string(), "--resume", id, "three"}, o);
  CHECK(third.exit_code == 3);

  // A settings file whose prices are not numbers stops a run with a budget, naming the entry:
  // the budget is not held at the plan's prices instead. Without a budget it is a warning.
  s.write("home/.config/amplifier/settings.yaml", "pricing:\n  mock-model: {input: lots, output: 1}\n");
  auto refused = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "again"}, o);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("pricing.mock-model.input") != std::string::npos);
  CHECK(refused.err.find("the session has a budget") != std::string::npos);
  auto unbudgeted = s.write("free.yaml", persistent_plan(""));
  auto warned = run_amplifier({"run", "--plan", unbudgeted.string(), "again"}, o);
  CHECK(warned.exit_code == 0);
  CHECK(warned.err.find("the operator's prices are not used") != std::string::npos);
}

// The child starts with the parent's whole conversation (context_depth: all), whose answers
// carry the parent's ledger: the child's is its own all the same. Its agent cannot reprice
// its model or loosen the budget (the money keys are the parent's).
TEST_CASE("a delegated child's cost is rolled into its parent's ledger, apart from the parent's own") {
  Scratch s;
  auto file = s.write("plan.yaml", R"(session:
  orchestrator: loop-streaming
  context: {module: context-persistent, config: {store_dir: ./sessions}}
  pricing: {"mock*": {input: 1000, output: 2000}}
providers:
  - module: provider-mock
    config: {responses: [{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "Find", context_depth: all}}], usage: {input_tokens: 10, output_tokens: 5}}, {text: "Parent done.", usage: {input_tokens: 10, output_tokens: 5}}]}
tools:
  - {module: tool-delegate}
agents:
  researcher:
    description: Finds answers
    instructions: You research things.
    session: {pricing: {"mock*": {input: 0, output: 0}}, budget: {max_cost_usd: 1000000}}
    providers:
      - module: provider-mock
        config: {responses: [{text: "Child answer", usage: {input_tokens: 100, output_tokens: 50}}]}
)");
  auto o = s.options();
  auto run = run_amplifier({"run", "--plan", file.string(), "--format", "jsonl", "go"}, o);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::string parent = session_id_of(run.out);
  auto updates = events_named(run.out, "ledger:update");
  REQUIRE(updates.size() == 3);  // parent, child, parent
  const json::object &last = updates.back();
  CHECK(last.at("session_id").as_string() == parent);
  const json::object &ledger = last.at("ledger").as_object();
  CHECK(ledger.at("session").at("cost_usd").as_double() == doctest::Approx(0.04));
  CHECK(ledger.at("children").at("cost_usd").as_double() == doctest::Approx(0.2));
  CHECK(ledger.at("children").at("calls").as_int64() == 1);
  CHECK(ledger.at("total").at("cost_usd").as_double() == doctest::Approx(0.24));
  const json::object &child = updates[1].at("ledger").as_object();
  CHECK(child.at("session").at("calls").as_int64() == 1);
  CHECK(child.at("session").at("cost_usd").as_double() == doctest::Approx(0.2));
  // The child's report is the loop's to read, not the model's: the stored tool result has none.
  auto shown = run_amplifier(
      {"sessions", "show", "--json", "--store", (s.dir / "sessions").string(), parent}, o);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("\"report\"") == std::string::npos);
  auto text = run_amplifier({"sessions", "show", "--store", (s.dir / "sessions").string(), parent}, o);
  CHECK(text.out.find("cost $0.2400: this session $0.0400 (2 calls, 1 turn), child sessions "
                      "$0.2000 (1 call, 1 turn)") != std::string::npos);
}
