// A session's cost ledger (libs/cores/cost) as people read it: `sessions show`, chat's /cost
// and /status.
#pragma once
#include "amplifier/cost/ledger.hpp"

#include <string>

namespace amplifier::host {

// Two or three lines, each ending in '\n':
//   cost $0.2400: this session $0.0400 (2 calls, 1 turn), child sessions $0.2000 (1 call)
//   tokens 300: input 120, output 60, cache read 0, cache write 0 (reasoning 12)
//   (1 call of a model with no known price: the cost is at least the figure above)
std::string ledger_text(const cost::Ledger &ledger);

// "$0.0400" (four decimals; more below a cent, so a small figure never reads as $0.0000).
std::string usd_text(double usd);

}  // namespace amplifier::host
