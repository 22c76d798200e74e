// tool-mcp's configuration: the MCP servers (the `mcpServers` shape other MCP clients use) and
// the limits. Servers come from three places, merged by server name, a later one replacing an
// earlier entry of the same name whole:
//   1. the user file     $XDG_CONFIG_HOME/amplifier/mcp.json (default ~/.config/amplifier/)
//   2. the project file  .amplifier/mcp.json in the working directory
//   3. the plan          the module config's `servers`                       (wins)
// A file holds {"mcpServers": {...}} (or {"servers": {...}}). A missing file is fine; a file
// that cannot be read or parsed, or a server entry that is wrong, stops the module with a
// message naming the file (or the plan), the server and the problem.
#pragma once
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace tool_mcp {

using NameValues = std::vector<std::pair<std::string, std::string>>;

enum class TransportKind { stdio, http };

struct ServerConfig {
  std::string name;
  std::string origin;  // where it was defined: a file path or "the plan"
  TransportKind transport = TransportKind::stdio;
  std::vector<std::string> command_line;  // stdio: command, then args
  NameValues env;                         // stdio: added to the host's environment
  std::filesystem::path working_dir;      // stdio: empty = the host's
  std::string url;                        // http
  NameValues headers;                     // http: sent with every request
};

struct Limits {
  // How long the module's creation waits for the servers' handshakes (in parallel); a server
  // not ready by then keeps connecting and its tools are added when it is.
  std::chrono::milliseconds startup_timeout{15'000};
  std::chrono::milliseconds call_timeout{120'000};  // one tools/call
  std::size_t max_output_chars = 50'000;            // text of one result
  std::size_t max_message_bytes = 16u << 20;        // one JSON-RPC message from a server
  std::chrono::milliseconds reconnect_min_delay{500};
  std::chrono::milliseconds reconnect_max_delay{30'000};
};

struct McpConfig {
  std::vector<ServerConfig> servers;  // sorted by name
  Limits limits;
  std::filesystem::path user_file;     // empty when not read (user_config: false)
  std::filesystem::path project_file;  // empty when not read (project_config: false)
};

McpConfig read_config(const amp::sdk::Host &host, std::string_view config_json);

// One server entry ({command, args, env, cwd} or {url, headers}); throws ConfigError naming
// `origin`, the server and the problem. Exposed for the tests.
ServerConfig read_server(const amp::sdk::Host &host, const std::string &name,
                         const boost::json::value &entry, const std::string &origin);

}  // namespace tool_mcp
