// Counts heap allocations made through the global operator new (replaced in this binary).
#pragma once

#include <cstdint>

namespace amplifier::bench {

std::uint64_t allocations_so_far();

}  // namespace amplifier::bench
