// Facts about the session and the moment, as several modules record them.
#pragma once
#include "amplifier_sdk.hpp"

#include <string>

namespace amplifier::module_support {

// The session id from the host's session_info. Throws std::runtime_error when it is missing.
std::string session_id_of(const amp::sdk::Host &host);

// Now, as ISO 8601 UTC with milliseconds (like the host's event timestamps).
std::string now_iso8601();

}  // namespace amplifier::module_support
