#include "amplifier/orchestrator/session_ledger.hpp"

#include "amplifier/model_base.hpp"
#include "amplifier/module_support/session_facts.hpp"

#include <boost/json/parse.hpp>

namespace amplifier::orchestrator {
namespace json = boost::json;

namespace {
constexpr double kWarnAt = 0.8;  // budget:warning at 80 % of a limit
}

SessionLedger::SessionLedger(std::string session_id, cost::PriceTable prices, cost::Budget budget)
    : session_id_(std::move(session_id)), prices_(std::move(prices)), budget_(budget) {
  ledger_.session_id = session_id_;
}

SessionLedger SessionLedger::for_session(const amp::sdk::Host &host,
                                         const cost::Budget &loop_budget) {
  auto entries = [&](std::string_view key) {
    const auto text = host.capability("plan.session." + std::string(key));
    if (!text) return json::object{};
    json::value overrides = amplifier::parse_json(*text);
    if (!overrides.is_object())
      throw cost::PriceError("session." + std::string(key) + ": expected a map of model -> prices");
    return std::move(overrides.as_object());
  };
  cost::PriceTable prices = cost::PriceTable::builtin().with(entries("pricing"));
  if (json::object operator_prices = entries("operator_pricing"); !operator_prices.empty())
    prices = prices.behind(cost::PriceTable().with(operator_prices));
  cost::Budget budget = loop_budget;
  if (auto session_budget = host.capability("plan.session.budget"))
    budget = budget.stricter(
        cost::budget_from_json(amplifier::parse_json(*session_budget), "session.budget"));
  return SessionLedger(module_support::session_id_of(host), std::move(prices), budget);
}

void SessionLedger::restore_once(const amp::sdk::Host &host) {
  {
    std::lock_guard lock(mutex_);
    if (restored_) return;
  }
  // Read outside the lock: the context may take a while for a long history.
  cost::Ledger stored;
  json::value messages = amplifier::parse_json(host.context_messages());
  if (messages.is_array()) stored = cost::ledger_of_transcript(messages.as_array(), session_id_);
  std::lock_guard lock(mutex_);
  if (restored_) return;
  restored_ = true;
  ledger_ = stored;
  ledger_.session_id = session_id_;
}

std::optional<cost::BudgetMeasure> SessionLedger::begin_turn() {
  std::lock_guard lock(mutex_);
  if (auto over = cost::first_exceeded(budget_, ledger_.total(), /*starting_turn=*/true))
    return over;
  ledger_.own.turns += 1;
  return std::nullopt;
}

std::optional<cost::BudgetMeasure> SessionLedger::before_call() const {
  std::lock_guard lock(mutex_);
  return cost::first_exceeded(budget_, ledger_.total(), /*starting_turn=*/false);
}

cost::CallCost SessionLedger::record_call(std::string_view provider_module,
                                          std::string_view model, const json::object &usage,
                                          bool usage_reported) {
  cost::CallCost call = cost::price_call(prices_, provider_module, model, usage);
  if (!usage_reported) call.usd.reset();
  std::lock_guard lock(mutex_);
  ledger_.own.add(call);
  return call;
}

void SessionLedger::record_child(const cost::Totals &child) {
  std::lock_guard lock(mutex_);
  ledger_.children.add(child);
}

cost::Ledger SessionLedger::snapshot() const {
  std::lock_guard lock(mutex_);
  return ledger_;
}

std::vector<cost::BudgetMeasure> SessionLedger::new_warnings() {
  std::lock_guard lock(mutex_);
  std::vector<cost::BudgetMeasure> out;
  for (auto &m : cost::measure(budget_, ledger_.total(), /*starting_turn=*/false))
    if (m.fraction() >= kWarnAt && warned_.insert(m.limit).second) out.push_back(m);
  return out;
}

}  // namespace amplifier::orchestrator
