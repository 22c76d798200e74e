// The loop's side of the cost ledger (libs/cores/cost): one per session, kept by the loop
// module across its turns, restored from the transcript, and held to the session's budget.
//
// Threads: a session runs one turn at a time, but a turn's steps move between the host's
// workers, so every member takes the mutex.
#pragma once
#include "amplifier/cost/ledger.hpp"
#include "amplifier/cost/prices.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace amplifier::orchestrator {

class SessionLedger {
 public:
  SessionLedger(std::string session_id, cost::PriceTable prices, cost::Budget budget);

  // The prices and budget a session's loop uses: the operator's prices (`session.
  // operator_pricing`, which the host sets from its settings and no plan can: capability
  // "plan.session.operator_pricing"), consulted first, then the plan's `session.pricing` over
  // the shipped ones; and the stricter of `session.budget` and the loop's own `budget`.
  // Throws cost::PriceError naming a bad entry.
  static SessionLedger for_session(const amp::sdk::Host &host, const cost::Budget &loop_budget);

  // The first time a turn starts: carries on from this session's last ledger in the
  // transcript (a resumed or reopened session), if any; a parent's, which a delegated child's
  // first messages may carry, is not this session's.
  void restore_once(const amp::sdk::Host &host);

  // A turn is about to start: the limit it would break, else nothing (and the turn counts).
  std::optional<cost::BudgetMeasure> begin_turn();
  // A provider call is about to start: the limit already reached, else nothing.
  std::optional<cost::BudgetMeasure> before_call() const;

  // Prices a provider call's answer and adds it. A call whose provider reported no usage is
  // counted with an unknown cost, never as free.
  cost::CallCost record_call(std::string_view provider_module, std::string_view model,
                             const boost::json::object &usage, bool usage_reported);
  // A child session's (delegate's) ledger total, rolled up apart.
  void record_child(const cost::Totals &child);

  cost::Ledger snapshot() const;
  // Limits at or past 80 % of their max that were not reported before: each once a session.
  std::vector<cost::BudgetMeasure> new_warnings();
  const cost::Budget &budget() const { return budget_; }

 private:
  const std::string session_id_;
  const cost::PriceTable prices_;
  const cost::Budget budget_;
  mutable std::mutex mutex_;
  cost::Ledger ledger_;
  bool restored_ = false;
  std::set<std::string> warned_;
};

}  // namespace amplifier::orchestrator
