// Facts about the session and the moment, as several modules record them.
#pragma once
#include "amplifier_sdk.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace amplifier::module_support {

// The session id from the host's session_info. Throws std::runtime_error when it is missing.
std::string session_id_of(const amp::sdk::Host &host);

// The folder the host confined the session to (session_info's "workspace", ABI 1.5), or
// nullopt when it is not confined. A tool that touches files or runs commands works there and
// never outside it, over its own config: the operator's host decides it, not the plan. Throws
// (amp::sdk::HostError, std::runtime_error) when the host cannot say: a tool must not start
// unconfined by mistake.
std::optional<std::filesystem::path> confined_folder_of(const amp::sdk::Host &host);

// The session's own folder for per-session state (session_info's "state_folder"), or nullopt
// when the host gave none: then the module keeps nothing of the session on disk.
std::optional<std::filesystem::path> state_folder_of(const amp::sdk::Host &host);

// How many user messages the session's context holds: the number of the running turn, as
// `amplifier sessions` and chat's /rewind count turns (a prompt, a steering message or a
// hook's stored reason each begin one). Reads the whole history: call it per change, not per
// delta.
std::int64_t user_messages_of(const amp::sdk::Host &host);

// Now, as ISO 8601 UTC with milliseconds (like the host's event timestamps).
std::string now_iso8601();

}  // namespace amplifier::module_support
