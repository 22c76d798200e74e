// A scripted HTTP/1.1 vendor server on 127.0.0.1 for tests, on its own io thread. Each request
// consumes the next scripted response (or the default one), so retry sequences such as
// "429, then 200" can be scripted; every request is recorded for assertions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amplifier::loopback {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

enum class Framing {
  chunked,         // Transfer-Encoding: chunked, one HTTP chunk per scripted piece
  content_length,  // Content-Length of the whole body
  close_delimited, // no length: the body ends when the server closes (HTTP/1.0 style)
};

enum class Fault {
  none,
  reset,  // after fault_after_bytes body bytes: abortive close (TCP RST)
  close,  // after fault_after_bytes body bytes: orderly close, body left unfinished
  stall,  // after fault_after_bytes body bytes: send nothing more, keep the connection open
};

struct ScriptedResponse {
  int status = 200;
  HeaderList headers;
  std::string body;
  Framing framing = Framing::chunked;
  // The body goes out in pieces of these sizes, cycling; empty means one piece.
  std::vector<std::size_t> piece_sizes;
  // Pause before each piece after the first (asio timer on the server's thread).
  std::chrono::milliseconds piece_interval{0};
  // Pause before the response head.
  std::chrono::milliseconds head_delay{0};
  Fault fault = Fault::none;
  std::size_t fault_after_bytes = 0;
  bool close_after = false;  // Connection: close after this response
  // Closes the connection after the response without saying so (as a server whose keep-alive
  // idle timeout expired does): the client's pooled connection is then stale.
  bool close_silently_after = false;
  // When set, each occurrence of this text in a piece is overwritten, as the piece is sent,
  // with the send time: std::chrono::steady_clock nanoseconds, zero-padded to the text's
  // length. A test in the same process reads it back to measure wire-to-hook latency.
  std::string send_time_placeholder;

  // Builders for the common cases.
  static ScriptedResponse sse(std::string body, std::vector<std::size_t> piece_sizes = {});
  static ScriptedResponse ndjson(std::string body, std::vector<std::size_t> piece_sizes = {});
  static ScriptedResponse json(int status, std::string body, HeaderList headers = {});
  // 429 with `retry-after: <seconds>` and an Anthropic rate_limit_error body.
  static ScriptedResponse rate_limited(std::string retry_after_value);
  // 529 with an Anthropic overloaded_error body.
  static ScriptedResponse overloaded();
  // 500 with an Anthropic api_error body.
  static ScriptedResponse server_error();
};

struct RecordedRequest {
  std::string method;
  std::string target;  // as sent: origin-form "/v1/x" or absolute-form through a proxy
  HeaderList headers;
  std::string body;
  std::uint64_t connection_id = 0;  // requests on one kept-alive connection share it

  std::optional<std::string> header(std::string_view name) const;  // case-insensitive
};

struct ServerOptions {
  bool tls = false;  // HTTPS with a certificate issued at start-up by a fresh test CA
};

class LoopbackServer {
 public:
  explicit LoopbackServer(ServerOptions options = {});
  ~LoopbackServer();  // stops the io thread and closes every connection
  LoopbackServer(const LoopbackServer &) = delete;
  LoopbackServer &operator=(const LoopbackServer &) = delete;

  std::uint16_t port() const;
  // "http://127.0.0.1:<port>" or "https://127.0.0.1:<port>"; the certificate also names
  // "localhost".
  std::string base_url() const;
  // PEM of the CA that issued the server certificate (TLS only; empty otherwise).
  const std::string &ca_pem() const;

  // Thread-safe. Queued responses are consumed one per request, in order; when the queue is
  // empty the default response is served (a 500 saying "no scripted response" until set).
  void enqueue(ScriptedResponse response);
  void set_default_response(ScriptedResponse response);
  // Chooses the response to each request from what it asks (a benchmark's sessions that each
  // follow their own script); nullopt leaves it to the queue and the default. Runs on the
  // server's thread. Thread-safe.
  using Responder = std::function<std::optional<ScriptedResponse>(const RecordedRequest &)>;
  void set_responder(Responder responder);

  std::vector<RecordedRequest> requests() const;
  std::size_t connections_accepted() const;
  std::size_t connections_closed() const;
  // Block the test thread until the condition holds (condition variable, no polling) or the
  // timeout passes; return whether it holds.
  bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const;
  bool wait_for_closed_connections(std::size_t count, std::chrono::milliseconds timeout) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// A minimal forward proxy on 127.0.0.1 for proxy tests: CONNECT tunnels (to 127.0.0.1 only)
// and absolute-form plain-HTTP requests (relayed to 127.0.0.1 only). Records what it saw.
class LoopbackProxy {
 public:
  LoopbackProxy();
  ~LoopbackProxy();
  LoopbackProxy(const LoopbackProxy &) = delete;
  LoopbackProxy &operator=(const LoopbackProxy &) = delete;

  std::uint16_t port() const;
  std::string url() const;  // "http://127.0.0.1:<port>"
  // Request lines seen: "CONNECT 127.0.0.1:1234" or "POST http://127.0.0.1:1234/v1/x".
  std::vector<std::string> request_lines() const;
  // Proxy-Authorization header values seen.
  std::vector<std::string> authorizations() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace amplifier::loopback
