#include "amplifier/orchestrator/call_errors.hpp"

#include <string>

namespace amplifier::orchestrator {

KernelError error_from_payload(std::string_view payload) {
  try {
    return from_json<KernelError>(parse_json(payload));
  } catch (const std::exception &) {
    return KernelError::make(ErrorKind::internal, std::string(payload));
  }
}

}  // namespace amplifier::orchestrator
