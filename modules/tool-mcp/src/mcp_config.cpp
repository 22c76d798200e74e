#include "mcp_config.hpp"

#include "amplifier/folder_trust.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier/user_dirs.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace tool_mcp {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
namespace ms = amplifier::module_support;

std::chrono::milliseconds seconds_to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

// An object of strings ({"NAME": "value"}), in key order.
NameValues read_string_map(ms::ConfigReader &entry, std::string_view key) {
  NameValues out;
  const json::value *value = entry.get_value(key);
  if (!value) return out;
  if (!value->is_object())
    throw entry.error(key, std::string("must be an object of strings, got ") +
                               std::string(ms::describe_kind(*value)));
  for (const auto &field : value->get_object()) {
    if (!field.value().is_string())
      throw entry.error(key, "'" + std::string(field.key()) + "' must be a string, got " +
                                 std::string(ms::describe_kind(field.value())));
    out.emplace_back(std::string(field.key()), std::string(field.value().get_string()));
  }
  return out;
}

TransportKind transport_of(ms::ConfigReader &entry) {
  const bool has_command = entry.has("command");
  const bool has_url = entry.has("url");
  const std::string type = entry.get_string("type", "");
  if (type == "sse")
    throw entry.error("type",
                      "'sse' (the 2024-11-05 HTTP+SSE transport) is not supported; use "
                      "the server's Streamable HTTP endpoint");
  if (!type.empty() && type != "stdio" && type != "http" && type != "streamable-http" &&
      type != "streamableHttp")
    throw entry.error("type", "must be 'stdio' or 'http', got '" + type + "'");
  if (has_command && has_url) throw entry.error("command", "and 'url' are both set; give one");
  if (!has_command && !has_url)
    throw ms::ConfigError(entry.context() +
                          ": needs 'command' (a stdio server) or 'url' (a "
                          "Streamable HTTP server)");
  return has_url ? TransportKind::http : TransportKind::stdio;
}

void read_stdio(ms::ConfigReader &entry, ServerConfig &server) {
  std::string command = entry.get_string("command", "");
  if (command.empty()) throw entry.error("command", "must not be empty");
  server.command_line.push_back(std::move(command));
  for (auto &arg : entry.get_string_list("args", {})) server.command_line.push_back(std::move(arg));
  server.env = read_string_map(entry, "env");
  if (auto cwd = entry.get_optional_string("cwd")) server.working_dir = ms::expand_home(*cwd);
}

void read_http(ms::ConfigReader &entry, ServerConfig &server) {
  server.url = entry.get_string("url", "");
  if (!server.url.starts_with("http://") && !server.url.starts_with("https://"))
    throw entry.error("url", "must be an http:// or https:// URL, got '" + server.url + "'");
  server.headers = read_string_map(entry, "headers");
}

// {"name": {...}, ...} from one source into `servers` (replacing entries of the same name).
void merge_servers(const amp::sdk::Host &host, const json::value &map, const std::string &origin,
                   std::map<std::string, ServerConfig> &servers) {
  if (!map.is_object())
    throw ms::ConfigError(origin + ": 'servers' must be an object of server entries, got " +
                          std::string(ms::describe_kind(map)));
  for (const auto &[name, entry] : map.get_object()) {
    ServerConfig server = read_server(host, std::string(name), entry, origin);
    servers[server.name] = std::move(server);
  }
}

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ms::ConfigError(path.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A missing file adds nothing; a broken one is an error naming it.
void merge_file(const amp::sdk::Host &host, const fs::path &path,
                std::map<std::string, ServerConfig> &servers) {
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) return;
  json::object file;
  try {
    file = ms::parse_json_object(read_file(path), path.string());
  } catch (const std::invalid_argument &e) {
    throw ms::ConfigError(e.what());
  }
  const json::value *map = file.if_contains("mcpServers");
  if (!map) map = file.if_contains("servers");
  if (!map) {
    host.warn("tool-mcp: " + path.string() + " has neither 'mcpServers' nor 'servers'; ignored");
    return;
  }
  merge_servers(host, *map, path.string(), servers);
}

Limits read_limits(ms::ConfigReader &reader) {
  Limits limits;
  limits.startup_timeout =
      seconds_to_ms(reader.get_number("startup_timeout_seconds", 15, 0.1, 3600));
  limits.call_timeout = seconds_to_ms(reader.get_number("timeout_seconds", 120, 0.1, 86'400));
  limits.max_output_chars = static_cast<std::size_t>(
      reader.get_int("max_output_chars", 50'000, 100, std::int64_t(1) << 30));
  limits.max_message_bytes = static_cast<std::size_t>(
      reader.get_int("max_message_bytes", 16 << 20, 4096, std::int64_t(1) << 30));
  limits.reconnect_max_delay =
      seconds_to_ms(reader.get_number("reconnect_max_delay_seconds", 30, 0.1, 3600));
  limits.reconnect_min_delay = std::min(limits.reconnect_min_delay, limits.reconnect_max_delay);
  return limits;
}

}  // namespace

ServerConfig read_server(const amp::sdk::Host &host, const std::string &name,
                         const json::value &entry_value, const std::string &origin) {
  const std::string context = origin + ": server '" + name + "'";
  if (name.empty()) throw ms::ConfigError(origin + ": a server has an empty name");
  if (!entry_value.is_object())
    throw ms::ConfigError(context + " must be an object, got " +
                          std::string(ms::describe_kind(entry_value)));
  ms::ConfigReader entry(entry_value.get_object(), context);
  ServerConfig server;
  server.name = name;
  server.origin = origin;
  server.transport = transport_of(entry);
  if (server.transport == TransportKind::stdio)
    read_stdio(entry, server);
  else
    read_http(entry, server);
  entry.warn_unknown_keys(host);
  return server;
}

McpConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-mcp config");
  McpConfig config;
  config.limits = read_limits(reader);
  const fs::path working_dir =
      ms::expand_home(reader.get_string("working_dir", fs::current_path().string()));
  if (reader.get_bool("user_config", true))
    config.user_file = amplifier::user_dirs::config() / "mcp.json";
  if (reader.get_bool("project_config", true))
    config.project_file = working_dir / ".amplifier" / "mcp.json";
  const json::value *plan_servers = reader.get_value("servers");
  reader.warn_unknown_keys(host);

  std::map<std::string, ServerConfig> servers;
  merge_file(host, config.user_file, servers);
  // A project's file names programs to start: a cloned repository does not get to, until the
  // operator trusts its folder (README "Security").
  std::error_code ec;
  if (!config.project_file.empty() && fs::exists(config.project_file, ec) &&
      !amplifier::folder_trust::is_trusted(working_dir)) {
    host.warn("tool-mcp: " + config.project_file.string() +
              " ignored: its folder is not trusted (run `amplifier trust " + working_dir.string() +
              "` to use it)");
    config.project_file.clear();
  }
  merge_file(host, config.project_file, servers);
  if (plan_servers) merge_servers(host, *plan_servers, "tool-mcp config: servers", servers);
  for (auto &entry : servers) config.servers.push_back(std::move(entry.second));
  return config;
}

}  // namespace tool_mcp
