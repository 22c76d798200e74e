// Asynchronous HTTP/1.1 client (http:// and https://) on an io_context the caller runs.
// One io thread serves any number of concurrent requests. Beast, Asio and OpenSSL stay
// behind the pimpl.
#pragma once

#include "amplifier/errors.hpp"
#include "amplifier/transport/cancel_handle.hpp"
#include "amplifier/transport/headers.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace amplifier::transport {

enum class LogLevel { debug, info, warning, error };
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

// A zero duration means "no limit".
struct Timeouts {
  // Name resolution, TCP connect, proxy CONNECT and TLS handshake together.
  std::chrono::milliseconds connect{10'000};
  // Waiting for the response head once the request is written.
  std::chrono::milliseconds read{600'000};
  // No body bytes for this long once the head has arrived (a stalled stream).
  std::chrono::milliseconds stream_idle{120'000};
  // The whole exchange, from start to the last body byte.
  std::chrono::milliseconds total{0};
};

struct TlsOptions {
  // Verify the server's certificate chain (system store) and host name. Turning this off
  // logs a warning on every new connection.
  bool verify_peer = true;
  // A PEM file of extra trusted CAs (e.g. a test CA), on top of the system store.
  std::string extra_ca_file;
};

// Proxy URLs ("http://[user:pass@]host:port"); empty means direct. no_proxy is a comma list
// of host names / domain suffixes / IP addresses, or "*".
struct ProxySettings {
  std::string http_proxy;
  std::string https_proxy;
  std::string no_proxy;
  // HTTP_PROXY / HTTPS_PROXY / NO_PROXY (lower-case names too, lower-case preferred).
  static ProxySettings from_environment();
  // The proxy URL to use for `scheme`://`host`, or empty for a direct connection.
  std::string proxy_for(std::string_view scheme, std::string_view host) const;
};

// Decides whether the client may connect to `address` (an IP address as text, e.g. "10.0.0.1"
// or "::1") for `host` (as the URL names it). Returns the reason to refuse, or nullopt to
// allow. Called on the io thread for every address the client is about to connect to: an IP
// literal, or each address a name resolved to (the refused ones are skipped; when none is
// left the request fails with kind `access_denied`, naming the host, the address and the
// reason). The check and the connect use the same resolved address, so a name cannot resolve
// differently in between (no DNS-rebinding window). Redirects are the caller's: each new
// request is checked again. See address_rules.hpp for a ready-made filter.
//
// A proxy resolves the target's name itself, out of the client's sight, so no address check
// of the target would be real there: a client with an address filter refuses every request
// whose route goes through a proxy (kind `access_denied`), instead of silently not checking.
using AddressFilter =
    std::function<std::optional<std::string>(std::string_view host, std::string_view address)>;

struct HttpClientOptions {
  Timeouts timeouts;
  TlsOptions tls;
  ProxySettings proxy = ProxySettings::from_environment();
  // Idle keep-alive connections kept per scheme+host+port (+proxy).
  std::size_t max_idle_connections_per_host = 4;
  // Idle connections older than this are closed rather than reused.
  std::chrono::milliseconds idle_connection_ttl{30'000};
  AddressFilter address_filter;  // empty: every address is allowed
  LogSink log;                   // may be empty
};

struct HttpRequest {
  std::string method = "POST";
  std::string url;  // absolute: http://host[:port]/path?query or https://...
  Headers headers;  // Host, Content-Length and Connection are set by the client
  std::string body;
  std::optional<Timeouts> timeouts;  // overrides HttpClientOptions::timeouts
};

struct ResponseHead {
  int status = 0;
  std::string reason;
  Headers headers;
};

// Callbacks run on the io thread, never concurrently for one request, and must not throw
// (an exception ends the request with an `internal` error). on_complete comes exactly once,
// last; after it no other callback runs.
struct ResponseHandlers {
  std::function<void(const ResponseHead &head)> on_head;
  // Decoded body bytes (chunked framing removed) as they arrive.
  std::function<void(std::string_view bytes)> on_body;
  // Empty optional: the whole response was received (any HTTP status). Otherwise a transport
  // failure: network, timeout, stream (cut off / malformed), cancelled, configuration.
  std::function<void(std::optional<KernelError> failure)> on_complete;
};

class HttpClient {
 public:
  HttpClient(boost::asio::io_context &io, HttpClientOptions options = {});
  // Cancels every in-flight request (their on_complete still runs on the io thread if it is
  // running) and closes idle connections.
  ~HttpClient();
  HttpClient(const HttpClient &) = delete;
  HttpClient &operator=(const HttpClient &) = delete;

  // Thread-safe. Starts the request on the io thread and returns at once. Failures of any
  // kind (bad URL included) arrive through on_complete, never as an exception.
  CancelHandle start(HttpRequest request, ResponseHandlers handlers);

  const HttpClientOptions &options() const;
  boost::asio::io_context &io_context() const;

  // Connections opened so far (for tests and metrics: keep-alive reuse keeps this low).
  std::size_t connections_opened() const;

  class Impl;
  // For the call layer (call.hpp) in this library.
  const std::shared_ptr<Impl> &impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace amplifier::transport
