#include "ledger_text.hpp"

#include <fmt/format.h>

namespace amplifier::host {

namespace {

std::string count(std::int64_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

std::string spent(const cost::Totals &t) {
  std::string out = fmt::format("{} ({}", usd_text(t.usd), count(t.calls, "call"));
  if (t.turns) out += ", " + count(t.turns, "turn");
  return out + ")";
}

}  // namespace

std::string usd_text(double usd) {
  if (usd > 0 && usd < 0.0001) return fmt::format("${:.8f}", usd);
  return fmt::format("${:.4f}", usd);
}

std::string ledger_text(const cost::Ledger &ledger) {
  const cost::Totals total = ledger.total();
  std::string out = fmt::format("cost {}: this session {}", usd_text(total.usd), spent(ledger.own));
  if (ledger.children.calls) out += ", child sessions " + spent(ledger.children);
  out += "\n";
  const cost::Tokens &t = total.tokens;
  out += fmt::format("tokens {}: input {}, output {}, cache read {}, cache write {}", t.total(),
                     t.input, t.output, t.cache_read, t.cache_write);
  if (t.reasoning) out += fmt::format(" (reasoning {})", t.reasoning);
  out += "\n";
  if (total.unpriced_calls)
    out += fmt::format("({} of a model with no known price: the cost is at least the figure "
                       "above)\n",
                       count(total.unpriced_calls, "call"));
  return out;
}

}  // namespace amplifier::host
