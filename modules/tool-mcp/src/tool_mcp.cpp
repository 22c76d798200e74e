// tool-mcp: the tools of MCP servers, mounted as tools of the session.
//
// Each configured server (mcp_config.hpp) gets an McpServer (mcp_server.hpp) that connects
// over stdio or Streamable HTTP and keeps the connection up. Each of its tools is offered as
// "mcp_<server>_<tool>" (tool_naming.hpp) with the server's description and input schema; a
// call goes to the server as tools/call and its result comes back as a ToolResult
// (result_mapping.hpp).
//
// Creation waits for the servers' handshakes at most startup_timeout_seconds (all at once); a
// server not ready by then, or one that fails, does not stop the session: its tools appear
// when it connects. When a server's tools change (it connected later, or sent
// notifications/tools/list_changed) the host is asked to list this module's tools again
// (the "tools_changed" host function); a host without it keeps the tools it listed first.
//
// Cancellation: an immediate cancel of a call ends it at once (AMP_CANCELLED) and the server
// gets notifications/cancelled; a graceful one lets the call finish, like tool-bash.
//
// THREADS: execute runs on the host's worker threads, concurrently, and waits for the server
// there; each server has a supervisor thread, a stdio server a reader thread, and the HTTP
// servers share one io thread (module_support::BackgroundExecutor).
#include "http_channel.hpp"
#include "mcp_config.hpp"
#include "mcp_server.hpp"
#include "result_mapping.hpp"
#include "stdio_channel.hpp"
#include "tool_naming.hpp"

#include "amplifier/module_support/background_executor.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace tool_mcp {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
namespace tp = amplifier::transport;

// Where a mounted tool name leads.
struct ToolRoute {
  McpServer *server = nullptr;
  std::string tool;  // the server's name for it
};

json::object tool_spec(const std::string &name, const McpServer &server, const json::object &tool) {
  std::string description(ms::string_at(tool, "description"));
  if (description.empty()) description = std::string(ms::string_at(tool, "title"));
  description += (description.empty() ? "" : " ") + std::string("(MCP server '") +
                 server.config().name + "', tool '" + std::string(ms::string_at(tool, "name")) +
                 "')";
  const json::object *schema = ms::object_at(tool, "inputSchema");
  json::object parameters = schema ? *schema : json::object{{"type", "object"}};
  if (!parameters.contains("type")) parameters["type"] = "object";
  return {{"name", name}, {"description", description}, {"parameters", std::move(parameters)}};
}

class McpTools final : public amp::sdk::ToolModule {
 public:
  McpTools(amp::sdk::Host host, std::string_view config_json)
      : ToolModule(host), config_(read_config(host, config_json)) {
    start_servers();
  }

  ~McpTools() override {
    ready_ = false;  // no more tools_changed to the host while the servers stop
    for (auto &server : servers_) server->request_stop();  // all at once: they stop in parallel
    for (auto &server : servers_) server->join();
    servers_.clear();
    http_.reset();  // before its io_context's executor
    executor_.reset();
  }

  std::string list_tools() override {
    std::lock_guard lock(routes_mutex_);
    json::array specs;
    routes_.clear();
    std::set<std::string> taken;
    for (const auto &server : servers_) {
      for (const json::value &entry : server->tools()) {
        const json::object &tool = entry.get_object();
        const std::string original(ms::string_at(tool, "name"));
        const std::string name =
            unique_tool_name(exposed_tool_name(server->config().name, original),
                             server->config().name + "/" + original, taken);
        routes_[name] = ToolRoute{server.get(), original};
        specs.push_back(tool_spec(name, *server, tool));
      }
    }
    listed_ = json::serialize(specs);
    return listed_;
  }

  void session_ready() override {
    ready_ = true;
    tools_changed();  // what changed between create and now
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    const std::optional<ToolRoute> route = route_for(tool);
    if (!route) {
      host().call_finish(call, AMP_OK,
                         failure_result("not_found",
                                        "tool-mcp has no tool '" + std::string(tool) +
                                            "' (its server may have removed it)",
                                        {}));
      return;
    }
    const ResultContext context{route->server->config().name, route->tool, 0};
    json::object arguments;
    try {
      arguments = ms::parse_json_object(input_json, "the input of " + std::string(tool));
    } catch (const std::invalid_argument &e) {
      host().call_finish(call, AMP_OK, failure_result("invalid_input", e.what(), context));
      return;
    }
    run(call, *route, std::move(arguments));
  }

  void cancel(amp_call_id call, amp_cancel_level level) override {
    if (level < AMP_CANCEL_IMMEDIATE) return;  // graceful: the running call finishes
    std::lock_guard lock(cancel_mutex_);
    cancelled_.insert(call);
  }

 private:
  void start_servers() {
    // A little past the handshakes' own timeout, so that a server that timed out is reported
    // with its reason.
    const auto deadline =
        Clock::now() + config_.limits.startup_timeout + std::chrono::milliseconds(500);
    for (const auto &server_config : config_.servers) {
      servers_.push_back(std::make_unique<McpServer>(
          server_config, config_.limits, channel_factory(),
          McpServer::Callbacks{server_log(server_config.name), [this] { tools_changed(); }}));
    }
    for (auto &server : servers_) server->start();
    for (auto &server : servers_) {
      if (!server->wait_first_attempt(deadline))
        host().warn("tool-mcp: server '" + server->config().name + "' is not ready after " +
                    "startup_timeout_seconds; its tools are added when it connects");
      else if (const std::string problem = server->problem(); !problem.empty())
        host().warn("tool-mcp: server '" + server->config().name + "': " + problem);
    }
  }

  McpServer::ChannelFactory channel_factory() {
    return [this](const ServerConfig &server) -> std::unique_ptr<Channel> {
      const LogFn log = server_log(server.name);
      if (server.transport == TransportKind::stdio)
        return std::make_unique<StdioChannel>(server, config_.limits.max_message_bytes, log);
      return std::make_unique<HttpChannel>(http_client(), server, config_.limits.max_message_bytes,
                                           log);
    };
  }

  // Made when the first HTTP server connects; shared by all of them.
  tp::HttpClient &http_client() {
    std::lock_guard lock(http_mutex_);
    if (!http_) {
      executor_ = ms::BackgroundExecutor::acquire(1);
      tp::HttpClientOptions options;
      options.log = [host = host()](tp::LogLevel, std::string_view line) {
        host.log(AMP_LOG_DEBUG, "tool-mcp http: " + std::string(line));
      };
      http_ = std::make_unique<tp::HttpClient>(executor_->context(), options);
    }
    return *http_;
  }

  LogFn server_log(const std::string &name) const {
    return [host = host(), name](amp_log_level level, const std::string &message) {
      host.log(level, "tool-mcp: server '" + name + "': " + message);
    };
  }

  // After session_ready only: before, the host lists the tools itself once create returns.
  void tools_changed() {
    if (!ready_) return;
    std::string before;
    {
      std::lock_guard lock(routes_mutex_);
      before = listed_;
    }
    if (list_tools() == before) return;  // listing also refreshes the routes calls use
    if (!host().tools_changed())
      host().warn(
          "tool-mcp: the tools of an MCP server changed, but this host cannot list "
          "tools again; the session keeps the tools it had");
  }

  std::optional<ToolRoute> route_for(std::string_view tool) {
    std::lock_guard lock(routes_mutex_);
    auto it = routes_.find(std::string(tool));
    if (it == routes_.end()) return std::nullopt;
    return it->second;
  }

  void run(amp_call_id call, const ToolRoute &route, json::object arguments) {
    auto cancelled = [this, call] {
      if (host().cancel_state(call) >= AMP_CANCEL_IMMEDIATE) return true;
      std::lock_guard lock(cancel_mutex_);
      return cancelled_.contains(call);
    };
    CallOutcome outcome = route.server->call_tool(route.tool, std::move(arguments), cancelled);
    {
      std::lock_guard lock(cancel_mutex_);
      cancelled_.erase(call);
    }
    if (outcome.cancelled) {
      host().call_fail(call, "cancelled",
                       "MCP tool '" + route.tool + "' of server '" + route.server->config().name +
                           "' cancelled; the server was told to stop it",
                       AMP_CANCELLED);
      return;
    }
    host().call_finish(call, AMP_OK, outcome.result_json);
  }

  const McpConfig config_;
  std::vector<std::unique_ptr<McpServer>> servers_;
  std::mutex http_mutex_;
  std::shared_ptr<ms::BackgroundExecutor> executor_;
  std::unique_ptr<tp::HttpClient> http_;
  std::mutex routes_mutex_;
  std::map<std::string, ToolRoute> routes_;
  std::string listed_;  // the specs last listed
  std::atomic<bool> ready_{false};
  std::mutex cancel_mutex_;
  std::set<amp_call_id> cancelled_;
};

}  // namespace
}  // namespace tool_mcp

AMP_DEFINE_MODULE(tool_mcp::McpTools, "tool-mcp", "0.1.0",
                  "The tools of MCP servers (stdio and Streamable HTTP) as tools of the session");
