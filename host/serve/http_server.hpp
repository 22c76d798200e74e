// The HTTP/1.1 side of `amplifier serve` (Boost.Beast on Asio): a fixed number of I/O threads
// carry every connection (keep-alive, a coroutine each); requests are handled by the Api on the
// kernel's worker pool, and a turn's events are written as they come (server-sent events).
#pragma once
#include "api.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace amplifier::host::serve {

struct HttpServerOptions {
  std::string listen = "127.0.0.1:8410";  // host:port, [v6]:port; port 0 picks a free one
  std::size_t io_threads = 2;
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 1024 * 1024;
  std::chrono::seconds idle_timeout{60};  // a keep-alive connection with no request is closed
  std::optional<std::string> token;       // set: every request but the public ones needs it
  std::string cors_origin;                // empty: no CORS headers at all
  std::vector<std::string> allowed_hosts;  // Host names beside IP addresses and localhost
};

// Whether a --listen value names a loopback address; throws std::runtime_error when malformed.
bool listen_is_loopback(const std::string &listen);

class HttpServer {
 public:
  // Binds (throws std::runtime_error naming the address when it cannot) and starts the I/O
  // threads.
  HttpServer(HttpServerOptions options, Api &api);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer &) = delete;
  HttpServer &operator=(const HttpServer &) = delete;

  std::string address() const;  // the bound address, e.g. "127.0.0.1:41234"
  bool loopback() const;        // bound to a loopback address

  // Blocks until SIGTERM or SIGINT.
  void wait_for_signal();
  void stop_accepting();             // closes the listening socket; connections go on
  std::size_t open_streams() const;  // responses still streaming
  void stop();                       // ends every connection and joins the I/O threads

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace amplifier::host::serve
