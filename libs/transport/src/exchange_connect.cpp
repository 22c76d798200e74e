// Getting a usable connection for an exchange: route (direct or proxy), TCP connect,
// CONNECT tunnel for https through a proxy, TLS handshake.
#include "amplifier/transport/error_mapping.hpp"
#include "http_exchange.hpp"
#include "text.hpp"
#include "tls_setup.hpp"

#include <boost/asio/connect.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <openssl/evp.h>

#include <charconv>
#include <vector>

namespace amplifier::transport::detail {

namespace http = beast::http;

namespace {

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                                     reinterpret_cast<const unsigned char *>(bytes.data()),
                                     static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(length));
  return out;
}

std::optional<std::uint16_t> parse_port(const std::string &text) {
  std::uint16_t port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return port;
}

// host:port with IPv6 brackets, for CONNECT lines and pool keys.
std::string host_and_port(const Endpoint &endpoint) {
  const bool ipv6 = endpoint.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + endpoint.port;
}

// A request the client's address rules refuse: the same request would be refused again.
KernelError refusal(std::string message) {
  KernelError failure = transport_failure(ErrorKind::access_denied, std::move(message));
  failure.retryable = false;
  return failure;
}

}  // namespace

std::optional<KernelError> Exchange::screen_address(const std::string &host,
                                                    const asio::ip::address &address) const {
  const AddressFilter &filter = client_->options.address_filter;
  if (!filter) return std::nullopt;
  const std::string text = address.to_string();
  auto reason = filter(host, text);
  if (!reason) return std::nullopt;
  const std::string named = host == text ? host : host + " (" + text + ")";
  return refusal("refused to connect to " + named + ": " + *reason);
}

std::optional<KernelError> Exchange::plan_route() {
  std::string problem;
  auto target = parse_endpoint(request_.url, problem);
  if (!target) return transport_failure(ErrorKind::configuration, problem);
  if (target->tls && client_->tls().error) return client_->tls().error;
  route_.target = std::move(*target);
  route_.pool_key = route_.target.scheme + "://" + host_and_port(route_.target);

  std::string proxy_url = client_->options.proxy.proxy_for(route_.target.scheme, route_.target.host);
  if (proxy_url.empty()) return std::nullopt;
  if (proxy_url.find("://") == std::string::npos) proxy_url.insert(0, "http://");
  auto proxy = parse_endpoint(proxy_url, problem);
  if (!proxy) return transport_failure(ErrorKind::configuration, "proxy: " + problem);
  if (proxy->tls)
    return transport_failure(ErrorKind::configuration,
                             "HTTPS proxies are not supported (" + proxy_url + ")");
  if (!proxy->user.empty())
    route_.proxy_authorization = "Basic " + base64(proxy->user + ":" + proxy->password);
  route_.pool_key += " via " + host_and_port(*proxy);
  route_.proxy = std::move(*proxy);
  if (client_->options.address_filter)
    return refusal("refused to send the request for " + route_.target.host + " through proxy " +
                   proxy_url + ": the proxy resolves the name itself, so the client's address "
                   "rules cannot be checked");
  return std::nullopt;
}

asio::awaitable<std::optional<KernelError>> Exchange::open_connection() {
  connection_ = std::make_shared<Connection>(client_->strand, route_.pool_key);
  ++client_->connections_opened;
  phase_timeout_ = transport_failure(
      ErrorKind::timeout,
      "connecting to " + peer() + " took longer than " + milliseconds_text(timeouts_.connect));
  phase_watchdog_->arm(timeouts_.connect);
  if (auto failure = co_await connect_socket()) co_return failure;
  if (route_.proxy && route_.target.tls) {
    if (auto failure = co_await open_tunnel()) co_return failure;
  }
  if (route_.target.tls) {
    if (auto failure = co_await start_tls()) co_return failure;
  }
  phase_watchdog_->disarm();
  if (client_->options.log)
    client_->log(LogLevel::debug, "connected to " + peer() + (route_.target.tls ? " (TLS)" : "") +
                                      (route_.proxy ? " through proxy " + route_.proxy->authority : ""));
  co_return std::nullopt;
}

asio::awaitable<std::optional<KernelError>> Exchange::connect_socket() {
  const Endpoint &hop = route_.first_hop();
  const auto port = parse_port(hop.port);
  if (!port) co_return transport_failure(ErrorKind::configuration, "invalid port '" + hop.port + "'");
  tcp::socket &socket = connection_->socket();
  boost::system::error_code error;
  const auto address = asio::ip::make_address(hop.host, error);
  if (!error) {
    // An IP literal needs no resolver (whose work runs on a helper thread).
    if (auto refused = screen_address(hop.host, address)) co_return refused;
    std::tie(error) = co_await socket.async_connect(tcp::endpoint(address, *port), use_tuple);
  } else {
    auto [resolve_error, results] =
        co_await connection_->resolver().async_resolve(hop.host, hop.port, use_tuple);
    if (aborted()) co_return aborted();
    if (resolve_error) co_return io_failure(Phase::resolving, resolve_error, hop.host);
    // Connecting to exactly the addresses that were checked leaves no window for the name to
    // resolve to another one in between.
    std::vector<tcp::endpoint> allowed;
    std::optional<KernelError> first_refusal;
    for (const auto &entry : results) {
      auto refused = screen_address(hop.host, entry.endpoint().address());
      if (!refused)
        allowed.push_back(entry.endpoint());
      else if (!first_refusal)
        first_refusal = std::move(refused);
    }
    if (allowed.empty()) co_return first_refusal;
    tcp::endpoint connected;
    std::tie(error, connected) = co_await asio::async_connect(socket, allowed, use_tuple);
  }
  if (aborted()) co_return aborted();
  if (error) co_return io_failure(Phase::connecting, error, host_and_port(hop));
  socket.set_option(tcp::no_delay(true), error);  // requests are written whole; no Nagle wait
  co_return std::nullopt;
}

asio::awaitable<std::optional<KernelError>> Exchange::open_tunnel() {
  const std::string authority = host_and_port(route_.target);
  http::request<http::empty_body> connect{http::verb::connect, authority, 11};
  connect.set(http::field::host, authority);
  if (!route_.proxy_authorization.empty())
    connect.set(http::field::proxy_authorization, route_.proxy_authorization);
  auto [write_error, written] = co_await http::async_write(connection_->socket(), connect, use_tuple);
  if (aborted()) co_return aborted();
  if (write_error) co_return io_failure(Phase::tunnelling, write_error, authority);

  http::response_parser<http::empty_body> reply;
  reply.skip(true);  // a 2xx answer to CONNECT has no body: the tunnel starts right after it
  auto [read_error, read] =
      co_await http::async_read(connection_->socket(), connection_->read_buffer(), reply, use_tuple);
  if (aborted()) co_return aborted();
  if (read_error) co_return io_failure(Phase::tunnelling, read_error, authority);
  const int status = reply.get().result_int();
  if (status / 100 == 2) co_return std::nullopt;
  KernelError failure = transport_failure(
      status == 407 ? ErrorKind::authentication : ErrorKind::network,
      "proxy " + host_and_port(*route_.proxy) + " refused CONNECT " + authority + ": HTTP " +
          std::to_string(status) + " " + std::string(reply.get().reason()));
  failure.status_code = status;
  failure.retryable = status >= 500;
  co_return failure;
}

asio::awaitable<std::optional<KernelError>> Exchange::start_tls() {
  TlsStream &stream = connection_->start_tls(*client_->tls().context);
  const bool verify = client_->options.tls.verify_peer;
  if (auto failure = prepare_tls_stream(stream, route_.target.host, route_.target.host_is_ip, verify))
    co_return failure;
  if (!verify)
    client_->log(LogLevel::warning, "TLS certificate verification is disabled for " + peer());
  auto [error] = co_await stream.async_handshake(ssl::stream_base::client, use_tuple);
  if (aborted()) co_return aborted();
  if (error) co_return io_failure(Phase::handshaking, error, peer());
  co_return std::nullopt;
}

}  // namespace amplifier::transport::detail
