// How JSON-RPC messages travel to and from one MCP server: a spawned process's stdin/stdout
// (stdio_channel.hpp) or Streamable HTTP (http_channel.hpp). A channel carries text; the
// JSON-RPC meaning is the RpcClient's (rpc_client.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tool_mcp {

using RequestId = std::int64_t;

// Callbacks from the channel's own threads. None runs after close() has returned.
struct ChannelEvents {
  // One message from the server (a JSON-RPC object, or a batch array), as text.
  std::function<void(std::string_view message)> on_message;
  // The channel is gone for good (the process ended, the HTTP session expired, a message over
  // the size limit): every request still waiting fails with `reason`. At most once.
  std::function<void(const std::string &reason)> on_closed;
  // HTTP: the exchange that carried request `id` ended. With `failure` it failed; without,
  // any answer it carried has been delivered (a request still waiting gets no answer now).
  std::function<void(RequestId id, const std::optional<std::string> &failure)> on_request_ended;
};

class Channel {
 public:
  virtual ~Channel() = default;
  // Starts the transport (spawns the process). Throws std::runtime_error with the reason.
  virtual void open(ChannelEvents events) = 0;
  // Sends one message; `id` is the request's when it is one. Never blocks for long; failures
  // come back through the events.
  virtual void send(std::string message, std::optional<RequestId> id) = 0;
  // The request `id` is no longer awaited (cancelled, timed out): stop its exchange if the
  // transport has one of its own.
  virtual void abandon(RequestId) {}
  // The handshake agreed on `protocol_version`: HTTP sends it with every later request and
  // opens its stream for server-initiated messages.
  virtual void initialized(const std::string &) {}
  // Ends the transport (stops the process with its group, ends the HTTP session).
  virtual void close() = 0;
  // What to say about the server in messages ("npx -y server", "http://host/mcp").
  virtual std::string describe() const = 0;
};

}  // namespace tool_mcp
