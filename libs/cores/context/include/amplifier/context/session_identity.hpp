// Which session a context module serves: the host's session_info, read once at creation.
#pragma once
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace amplifier::context {

struct SessionIdentity {
  std::string session_id;
  std::optional<std::string> parent_id;  // set for a child session (delegate)
  boost::json::object labels;            // what the host attached (session_info "labels")
};

// Throws when session_info is not a JSON object.
SessionIdentity session_identity(const amp::sdk::Host &host);

}  // namespace amplifier::context
