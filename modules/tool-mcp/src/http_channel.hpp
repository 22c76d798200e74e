// The Streamable HTTP transport (MCP 2025-03-26 / 2025-06-18) on the project's one HTTP/SSE
// transport (libs/transport):
//   - every message is a POST to the server's URL accepting JSON or an event stream; the
//     answer to a request comes back as one JSON body or as events of that POST's stream;
//   - the Mcp-Session-Id the server gives in answer to initialize goes with every later
//     request, and so does MCP-Protocol-Version once negotiated; a 404 for a request carrying
//     the session means the session is gone, which closes the channel (the server connection
//     then reconnects with a new handshake);
//   - after the handshake a GET opens the stream on which the server sends what is not an
//     answer (tools/list_changed); a server without one answers 405 and none is kept open;
//   - a POST's event stream cut before its answer came is resumed with a GET carrying
//     Last-Event-ID, when the server numbered its events; a GET stream that ends is reopened
//     the same way, after a pause;
//   - close() ends the session with a DELETE.
#pragma once
#include "channel.hpp"
#include "mcp_config.hpp"
#include "rpc_client.hpp"

#include "amplifier/transport/http_client.hpp"

#include <memory>

namespace tool_mcp {

class HttpChannel final : public Channel {
 public:
  HttpChannel(amplifier::transport::HttpClient &client, ServerConfig config,
              std::size_t max_message_bytes, LogFn log);
  ~HttpChannel() override;

  void open(ChannelEvents events) override;
  void send(std::string message, std::optional<RequestId> id) override;
  void abandon(RequestId id) override;
  void initialized(const std::string &protocol_version) override;
  void close() override;
  std::string describe() const override;

  struct Shared;  // what the exchanges' callbacks share with the channel (http_channel.cpp)

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace tool_mcp
