// HttpClient's state, shared by the exchanges and calls it runs (they keep it alive).
#pragma once

#include "amplifier/transport/http_client.hpp"
#include "asio_types.hpp"
#include "connection.hpp"
#include "tls_setup.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace amplifier::transport {

class HttpClient::Impl : public std::enable_shared_from_this<HttpClient::Impl> {
 public:
  Impl(boost::asio::io_context &io, HttpClientOptions options);

  CancelHandle start(HttpRequest request, ResponseHandlers handlers);
  // On the strand: cancels every running exchange and closes idle connections.
  void shutdown();

  void log(LogLevel level, std::string_view message) const;

  boost::asio::io_context &io;
  detail::Strand strand;
  const HttpClientOptions options;
  // The TLS context, made on the first https request (tls_setup.hpp, shared_tls_context).
  const detail::SharedTlsContext &tls();
  detail::ConnectionPool pool;
  std::atomic<std::size_t> connections_opened{0};

  // Strand-only: running exchanges and calls, so that shutdown can cancel them, and whether
  // shutdown has happened (nothing new starts after it).
  void track(const Cancellable *key, std::weak_ptr<Cancellable> operation);
  void forget(const Cancellable *key);
  bool is_shut_down() const { return shut_down_; }

 private:
  std::unordered_map<const Cancellable *, std::weak_ptr<Cancellable>> running_;
  bool shut_down_ = false;
  std::once_flag tls_once_;
  detail::SharedTlsContext tls_;
};

}  // namespace amplifier::transport
