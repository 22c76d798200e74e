// One request/response exchange: get a connection (pooled or new, direct or through a proxy),
// send the request, stream the response to the handlers. Runs as a coroutine on the client's
// strand; cancellation and timeouts close the socket, which ends the pending operation.
#pragma once

#include "amplifier/transport/http_client.hpp"
#include "asio_types.hpp"
#include "client_impl.hpp"
#include "connection.hpp"
#include "endpoint.hpp"
#include "io_failures.hpp"
#include "watchdog.hpp"

#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>

namespace amplifier::transport::detail {

// Where the bytes go: the target, and the proxy in between when there is one.
struct Route {
  Endpoint target;
  std::optional<Endpoint> proxy;
  std::string proxy_authorization;  // "Basic ..." when the proxy URL had credentials
  std::string pool_key;
  // Plain HTTP through a proxy sends absolute-form requests; HTTPS tunnels with CONNECT.
  bool absolute_form() const { return proxy && !target.tls; }
  const Endpoint &first_hop() const { return proxy ? *proxy : target; }
};

class Exchange : public Cancellable, public std::enable_shared_from_this<Exchange> {
 public:
  static std::shared_ptr<Exchange> create(std::shared_ptr<HttpClient::Impl> client,
                                          HttpRequest request, ResponseHandlers handlers);
  Exchange(std::shared_ptr<HttpClient::Impl> client, HttpRequest request,
           ResponseHandlers handlers);

  void start();            // thread-safe
  void cancel() override;  // thread-safe
  // On the strand: ends the exchange with `reason` at once.
  void abort(KernelError reason);

 private:
  using Failure = std::optional<KernelError>;
  struct Outcome {
    Failure failure;
    bool stale_connection = false;  // a reused connection was dead: try a fresh one
  };

  void arm_watchdogs();
  asio::awaitable<void> run();
  asio::awaitable<Failure> perform();
  // exchange_connect.cpp
  Failure plan_route();
  asio::awaitable<Failure> open_connection();
  asio::awaitable<Failure> connect_socket();
  asio::awaitable<Failure> open_tunnel();
  asio::awaitable<Failure> start_tls();
  // The client's address filter on one address about to be connected to.
  Failure screen_address(const std::string &host, const asio::ip::address &address) const;
  // http_exchange.cpp
  template <class Stream>
  asio::awaitable<Outcome> transfer(Stream &stream, bool reused);
  template <class Stream>
  asio::awaitable<Outcome> receive_body(Stream &stream);
  void build_request_message();
  ResponseHead make_head() const;
  bool deliver_head();
  bool deliver_body(std::string_view bytes);
  bool deliver_buffered(std::span<char> scratch, beast::error_code &error);
  void finish_connection(bool reusable);
  void complete(Failure failure);
  Failure aborted() const { return abort_reason_; }
  std::string peer() const;

  std::shared_ptr<HttpClient::Impl> client_;
  HttpRequest request_;
  ResponseHandlers handlers_;
  Timeouts timeouts_;
  Route route_;
  boost::beast::http::request<boost::beast::http::string_body> message_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
  std::shared_ptr<Connection> connection_;
  std::shared_ptr<Watchdog> phase_watchdog_;  // connect / response head / stream idle
  std::shared_ptr<Watchdog> total_watchdog_;
  KernelError phase_timeout_;                 // what phase_watchdog_ reports when it fires
  std::optional<KernelError> abort_reason_;
  bool completed_ = false;
};

}  // namespace amplifier::transport::detail
