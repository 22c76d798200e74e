// Reading the error payload of a failed call.
#pragma once
#include "amplifier/errors.hpp"

#include <string_view>

namespace amplifier::orchestrator {

// The host normalises a failed call's payload to {"kind","message",...}; a payload that still
// does not parse as a KernelError becomes an `internal` error carrying the raw text.
KernelError error_from_payload(std::string_view payload);

}  // namespace amplifier::orchestrator
