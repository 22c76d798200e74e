// Who may call the server: anyone on a loopback bind; with a bearer token on any other.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::host::serve {

// $XDG_CONFIG_HOME/amplifier/serve-token (default ~/.config/amplifier/serve-token).
std::filesystem::path token_file();

// The token in `file`; made (32 random bytes as hex, mode 0600) when the file does not exist.
// Throws std::runtime_error when it cannot be read or made, or is not private to the user.
std::string load_or_create_token(const std::filesystem::path &file);

// Whether `authorization` is "Bearer <token>"; compared in constant time.
bool bearer_matches(std::string_view authorization, const std::string &token);

}  // namespace amplifier::host::serve
