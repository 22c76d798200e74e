// How a provider's translator gives up on what a vendor sent: a KernelException of the given
// kind, which the call turns into its terminal error.
#pragma once
#include "amplifier/errors.hpp"

#include <string>

namespace amplifier::provider {

[[noreturn]] inline void fail_with(ErrorKind kind, std::string message) {
  throw KernelException(KernelError::make(kind, std::move(message)));
}

// A stream that contradicts itself, is not JSON, or ends early.
[[noreturn]] inline void fail_stream(std::string message) {
  fail_with(ErrorKind::stream, std::move(message));
}

}  // namespace amplifier::provider
