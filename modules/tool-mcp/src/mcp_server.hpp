// One MCP server for the session: its connection, kept alive by a supervisor thread of its own.
//
// The supervisor connects (spawns the process or starts the HTTP session), makes the
// handshake (initialize with protocol version negotiation, notifications/initialized,
// tools/list page by page) and then waits. When the connection dies (a crash, an exit, a lost
// HTTP session, a message over the size limit) every call in flight ends with an error saying
// why, and the supervisor connects again after a backoff (doubling from 0.5 s up to
// reconnect_max_delay; back to the start once a connection has stayed up for a while). On
// notifications/tools/list_changed it lists the tools again. Whenever the tools change it
// tells the module (on_tools_changed), which tells the host.
//
// Nothing waits without a bound: the handshake has the startup timeout, every call its own
// timeout, and a call made while the server is down waits for it at most the startup timeout.
#pragma once
#include "channel.hpp"
#include "mcp_config.hpp"
#include "rpc_client.hpp"

#include <boost/json/array.hpp>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tool_mcp {

// The MCP protocol versions this client speaks, newest first; it asks for the first.
inline constexpr std::string_view kProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

// What a tool call came to: the ToolResult JSON, or a cancellation.
struct CallOutcome {
  bool cancelled = false;
  std::string result_json;  // when not cancelled
};

class McpServer {
 public:
  using ChannelFactory = std::function<std::unique_ptr<Channel>(const ServerConfig &)>;
  struct Callbacks {
    LogFn log;                               // messages about this server (prefixed by the module)
    std::function<void()> on_tools_changed;  // from the supervisor thread
  };

  McpServer(ServerConfig config, Limits limits, ChannelFactory factory, Callbacks callbacks);
  ~McpServer();  // stop() and join
  McpServer(const McpServer &) = delete;
  McpServer &operator=(const McpServer &) = delete;

  void start();
  // Waits until the first connection attempt has succeeded or failed, or `deadline`.
  bool wait_first_attempt(Clock::time_point deadline);
  // Asks the supervisor to stop (closing the connection); join() waits for it.
  void request_stop();
  void join();

  const ServerConfig &config() const { return config_; }
  // The server's tools (their MCP objects) as last listed; kept while it is down, so that a
  // call to one says why it cannot run.
  boost::json::array tools() const;
  // Why it is not connected, or "" while it is.
  std::string problem() const;

  // Calls tool `tool` (the server's name) with `arguments`; `cancelled` is polled.
  CallOutcome call_tool(const std::string &tool, boost::json::object arguments,
                        const std::function<bool()> &cancelled);

 private:
  void supervise();
  bool connect_and_serve();
  std::shared_ptr<RpcClient> connect();
  void handshake(RpcClient &rpc);
  boost::json::array list_tools(RpcClient &rpc);
  void serve(const std::shared_ptr<RpcClient> &rpc);
  void set_tools(boost::json::array tools);
  void set_down(const std::string &reason);
  std::shared_ptr<RpcClient> wait_connected(Clock::time_point deadline,
                                            const std::function<bool()> &cancelled);
  std::string failure_for(const RpcOutcome &outcome, const std::string &tool) const;

  const ServerConfig config_;
  const Limits limits_;
  const ChannelFactory factory_;
  const Callbacks callbacks_;
  std::thread supervisor_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<RpcClient> rpc_;  // while connected
  boost::json::array tools_;
  std::string problem_ = "connecting";
  Clock::time_point next_attempt_{};
  bool first_attempt_done_ = false;
  bool stopping_ = false;
  bool connection_lost_ = false;
  bool relist_ = false;
};

}  // namespace tool_mcp
