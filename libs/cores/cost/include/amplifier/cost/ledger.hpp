// A session's running account of tokens and money, and the budget it is held to.
//
// Where it lives: the agent loop keeps one per session and writes it after every provider call
// into the answer's stored metadata ("usage", "cost", "ledger"), so the transcript carries it:
// a resumed session (context-persistent) or one reopened from PostgreSQL reads it back from
// its last answer, and `sessions show`, chat and serve read it from there as well.
#pragma once
#include "amplifier/cost/prices.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amplifier::cost {

struct Totals {
  std::int64_t calls = 0;
  std::int64_t turns = 0;
  Tokens tokens;
  double usd = 0;                    // the calls whose price is known
  std::int64_t unpriced_calls = 0;   // calls of a model with no price: `usd` is then a floor

  void add(const CallCost &call);
  void add(const Totals &more);
};

// {"calls", "turns", "tokens": {...}, "cost_usd", "unpriced_calls"?, "cost_unknown"?: true}.
boost::json::object to_json(const Totals &totals);
Totals totals_from_json(const boost::json::value &value);

struct Ledger {
  std::string session_id;  // whose ledger it is: a child's transcript starts with its parent's
  Totals own;              // this session's own calls and turns
  Totals children;         // its child sessions' (delegate), rolled up, shown apart
  Totals total() const;
};

// {"session_id", "session": own, "children": children, "total": own + children}: events,
// serve's GET, reports.
boost::json::object to_json(const Ledger &ledger);
// The form stored with every answer, kept small because every stored message goes into every
// later request: {"session_id", "session": [calls, turns, input, output, cache_read,
// cache_write, cache_write_1h, reasoning, usd, unpriced_calls], "children": [...] only when a
// child spent something}.
boost::json::object to_stored_json(const Ledger &ledger);
// The inverse of both; a missing or malformed part reads as zero.
Ledger ledger_from_json(const boost::json::value &value);

// The ledger stored with a message (an answer's metadata.ledger), if it has one.
std::optional<Ledger> ledger_of_message(const boost::json::value &message);
// The last ledger of session `session_id` in `messages`, or an empty one. Ledgers of other
// sessions (a parent's, in the messages a delegated child starts with) are passed over.
Ledger ledger_of_transcript(const boost::json::array &messages, std::string_view session_id);

// session.budget / a loop's `budget`: limits on the session's total (own and children's).
struct Budget {
  std::optional<double> max_cost_usd;
  std::optional<std::int64_t> max_tokens;
  std::optional<std::int64_t> max_turns;
  bool empty() const { return !max_cost_usd && !max_tokens && !max_turns; }
  // Each limit the stricter of the two.
  Budget stricter(const Budget &other) const;
};

// Reads {max_cost_usd?, max_tokens?, max_turns?}; `where` names it in errors. Throws PriceError
// for an unknown key or a value that is not a positive number.
Budget budget_from_json(const boost::json::value &value, std::string_view where);
boost::json::object to_json(const Budget &budget);

// One limit measured against the ledger.
struct BudgetMeasure {
  std::string limit;  // "max_cost_usd" | "max_tokens" | "max_turns"
  double used = 0;
  double max = 0;
  // max_cost_usd only: calls of a model with no known price, whose cost the limit cannot
  // hold; any such call ends the turn as if the limit were reached (first_exceeded).
  std::int64_t unpriced_calls = 0;
  // A hair above the quotient, so 0.04 of 0.05 is 80 % despite binary fractions.
  double fraction() const { return max > 0 ? used / max + 1e-9 : 1; }
};

// Each limit of `budget` with what `total` used of it. For max_turns, `starting_turn` counts
// the turn about to start (a budget of 3 turns lets the third start, not the fourth).
std::vector<BudgetMeasure> measure(const Budget &budget, const Totals &total, bool starting_turn);
// The first limit reached: money or tokens spent up to their max (checked before every provider
// call), or, when a turn is `starting_turn`, one turn more than max_turns allows. With
// max_cost_usd, a call of a model that has no price counts as reached: its cost is unknown, so
// it cannot be held under the limit.
std::optional<BudgetMeasure> first_exceeded(const Budget &budget, const Totals &total,
                                            bool starting_turn);
boost::json::object to_json(const BudgetMeasure &measure);

}  // namespace amplifier::cost
