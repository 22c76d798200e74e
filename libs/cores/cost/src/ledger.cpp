#include "amplifier/cost/ledger.hpp"

#include <algorithm>
#include <cmath>

namespace amplifier::cost {
namespace json = boost::json;

namespace {

std::int64_t whole_at(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && (v->is_int64() || v->is_uint64()) ? bounded_count(*v) : 0;
}

double number_at(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  if (!v || !v->is_number()) return 0;
  const double d = v->to_number<double>();
  return std::isfinite(d) && d > 0 ? std::min(d, kMaxFigure) : 0;
}

template <class T>
std::optional<T> min_of(const std::optional<T> &a, const std::optional<T> &b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

}  // namespace

void Totals::add(const CallCost &call) {
  calls = saturating_add(calls, 1);
  tokens.add(call.tokens);
  if (call.usd)
    usd += *call.usd;
  else
    unpriced_calls = saturating_add(unpriced_calls, 1);
}

void Totals::add(const Totals &more) {
  calls = saturating_add(calls, more.calls);
  turns = saturating_add(turns, more.turns);
  tokens.add(more.tokens);
  usd += more.usd;
  unpriced_calls = saturating_add(unpriced_calls, more.unpriced_calls);
}

json::object to_json(const Totals &t) {
  json::object out{{"calls", t.calls}, {"turns", t.turns}, {"tokens", to_json(t.tokens)},
                   {"cost_usd", rounded_usd(t.usd)}};
  if (t.unpriced_calls) {
    out["unpriced_calls"] = t.unpriced_calls;
    out["cost_unknown"] = true;  // cost_usd counts the priced calls only
  }
  return out;
}

namespace {

json::array totals_array(const Totals &t) {
  return json::array{t.calls,           t.turns,         t.tokens.input,          t.tokens.output,
                     t.tokens.cache_read, t.tokens.cache_write, t.tokens.cache_write_1h,
                     t.tokens.reasoning,  rounded_usd(t.usd),   t.unpriced_calls};
}

Totals totals_from_array(const json::array &a) {
  auto at = [&](std::size_t i) { return i < a.size() ? bounded_count(a[i]) : 0; };
  Totals t;
  t.calls = at(0);
  t.turns = at(1);
  t.tokens.input = at(2);
  t.tokens.output = at(3);
  t.tokens.cache_read = at(4);
  t.tokens.cache_write = at(5);
  t.tokens.cache_write_1h = at(6);
  t.tokens.reasoning = at(7);
  if (a.size() > 8 && a[8].is_number()) {
    const double usd = a[8].to_number<double>();
    t.usd = std::isfinite(usd) && usd > 0 ? std::min(usd, kMaxFigure) : 0;
  }
  t.unpriced_calls = at(9);
  return t;
}

}  // namespace

Totals totals_from_json(const json::value &value) {
  if (const json::array *compact = value.if_array()) return totals_from_array(*compact);
  Totals t;
  const json::object *o = value.if_object();
  if (!o) return t;
  t.calls = whole_at(*o, "calls");
  t.turns = whole_at(*o, "turns");
  if (const json::value *tokens = o->if_contains("tokens")) t.tokens = tokens_from_json(*tokens);
  t.usd = number_at(*o, "cost_usd");
  t.unpriced_calls = whole_at(*o, "unpriced_calls");
  return t;
}

Totals Ledger::total() const {
  Totals sum = own;
  sum.add(children);
  return sum;
}

json::object to_json(const Ledger &ledger) {
  return json::object{{"session_id", ledger.session_id},
                      {"session", to_json(ledger.own)},
                      {"children", to_json(ledger.children)},
                      {"total", to_json(ledger.total())}};
}

json::object to_stored_json(const Ledger &ledger) {
  json::object out{{"session_id", ledger.session_id}, {"session", totals_array(ledger.own)}};
  if (ledger.children.calls || ledger.children.turns || ledger.children.unpriced_calls)
    out["children"] = totals_array(ledger.children);
  return out;
}

Ledger ledger_from_json(const json::value &value) {
  Ledger ledger;
  const json::object *o = value.if_object();
  if (!o) return ledger;
  if (const json::value *id = o->if_contains("session_id"); id && id->is_string())
    ledger.session_id = std::string(id->get_string());
  if (const json::value *own = o->if_contains("session")) ledger.own = totals_from_json(*own);
  if (const json::value *children = o->if_contains("children"))
    ledger.children = totals_from_json(*children);
  return ledger;
}

std::optional<Ledger> ledger_of_message(const json::value &message) {
  const json::object *o = message.if_object();
  const json::value *metadata = o ? o->if_contains("metadata") : nullptr;
  const json::value *ledger =
      metadata && metadata->is_object() ? metadata->as_object().if_contains("ledger") : nullptr;
  if (!ledger) return std::nullopt;
  return ledger_from_json(*ledger);
}

Ledger ledger_of_transcript(const json::array &messages, std::string_view session_id) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (auto ledger = ledger_of_message(*it); ledger && ledger->session_id == session_id)
      return *ledger;
  Ledger none;
  none.session_id = std::string(session_id);
  return none;
}

Budget Budget::stricter(const Budget &other) const {
  return Budget{min_of(max_cost_usd, other.max_cost_usd), min_of(max_tokens, other.max_tokens),
                min_of(max_turns, other.max_turns)};
}

Budget budget_from_json(const json::value &value, std::string_view where) {
  const std::string at(where);
  Budget budget;
  if (value.is_null()) return budget;
  const json::object *o = value.if_object();
  if (!o) throw PriceError(at + ": expected a map with max_cost_usd, max_tokens or max_turns");
  for (const auto &member : *o) {
    const std::string key(member.key());
    const json::value &v = member.value();
    const std::string name = at + "." + key;
    if (key == "max_cost_usd") {
      if (!v.is_number() || !(v.to_number<double>() > 0) || !std::isfinite(v.to_number<double>()))
        throw PriceError(name + ": expected an amount in USD above 0");
      budget.max_cost_usd = v.to_number<double>();
    } else if (key == "max_tokens" || key == "max_turns") {
      if (!v.is_int64() || v.as_int64() <= 0)
        throw PriceError(name + ": expected a whole number above 0");
      (key == "max_tokens" ? budget.max_tokens : budget.max_turns) = v.as_int64();
    } else {
      throw PriceError(name + ": unknown limit (a budget takes max_cost_usd, max_tokens and "
                              "max_turns)");
    }
  }
  return budget;
}

json::object to_json(const Budget &budget) {
  json::object out;
  if (budget.max_cost_usd) out["max_cost_usd"] = *budget.max_cost_usd;
  if (budget.max_tokens) out["max_tokens"] = *budget.max_tokens;
  if (budget.max_turns) out["max_turns"] = *budget.max_turns;
  return out;
}

std::vector<BudgetMeasure> measure(const Budget &budget, const Totals &total, bool starting_turn) {
  std::vector<BudgetMeasure> out;
  if (budget.max_cost_usd) out.push_back({"max_cost_usd", total.usd, *budget.max_cost_usd});
  if (budget.max_tokens)
    out.push_back({"max_tokens", static_cast<double>(total.tokens.total()),
                   static_cast<double>(*budget.max_tokens)});
  if (budget.max_turns)
    out.push_back({"max_turns", static_cast<double>(total.turns + (starting_turn ? 1 : 0)),
                   static_cast<double>(*budget.max_turns)});
  return out;
}

std::optional<BudgetMeasure> first_exceeded(const Budget &budget, const Totals &total,
                                            bool starting_turn) {
  if (budget.max_cost_usd && total.unpriced_calls > 0)
    return BudgetMeasure{"max_cost_usd", total.usd, *budget.max_cost_usd, total.unpriced_calls};
  for (auto &m : measure(budget, total, starting_turn)) {
    // A turn admitted is not stopped for the turn count; it is for money and tokens.
    if (m.limit == "max_turns" ? starting_turn && m.used > m.max : m.fraction() >= 1) return m;
  }
  return std::nullopt;
}

json::object to_json(const BudgetMeasure &m) {
  json::object out{{"limit", m.limit}, {"used", rounded_usd(m.used)}, {"max", m.max}};
  if (m.unpriced_calls) {
    out["unpriced_calls"] = m.unpriced_calls;
    out["reason"] = "a model with no known price was called, so spending cannot be held to "
                    "max_cost_usd: add its price to session.pricing or the operator's settings";
  }
  if (m.limit != "max_cost_usd") {
    out["used"] = static_cast<std::int64_t>(m.used);
    out["max"] = static_cast<std::int64_t>(m.max);
  }
  return out;
}

}  // namespace amplifier::cost
