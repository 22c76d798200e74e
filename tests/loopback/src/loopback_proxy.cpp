// A forward proxy for tests: CONNECT tunnels and absolute-form requests, to 127.0.0.1 only.
// After the first request head it just relays bytes both ways until either side closes.
#include "amplifier/loopback/loopback_server.hpp"

#include "io_thread.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>

#include <charconv>
#include <memory>
#include <mutex>

namespace amplifier::loopback {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto proxy_use_tuple = asio::as_tuple(asio::use_awaitable);

// "127.0.0.1:8080" or "http://127.0.0.1:8080/path" -> port, when the host is loopback.
std::optional<std::uint16_t> loopback_port(std::string_view target) {
  if (auto scheme = target.find("://"); scheme != std::string_view::npos) {
    target.remove_prefix(scheme + 3);
    target = target.substr(0, target.find('/'));
  }
  const auto colon = target.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view host = target.substr(0, colon);
  if (host != "127.0.0.1" && host != "localhost") return std::nullopt;
  std::uint16_t port = 0;
  const std::string_view digits = target.substr(colon + 1);
  if (std::from_chars(digits.data(), digits.data() + digits.size(), port).ec != std::errc())
    return std::nullopt;
  return port;
}

// Copies bytes one way until EOF or error, then closes both sockets so the other way ends too.
asio::awaitable<void> relay(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to) {
  std::array<char, 16 * 1024> buffer;
  for (;;) {
    auto [read_error, read] = co_await from->async_read_some(asio::buffer(buffer), proxy_use_tuple);
    if (read_error) break;
    auto [write_error, written] = co_await asio::async_write(*to, asio::buffer(buffer.data(), read), proxy_use_tuple);
    if (write_error) break;
  }
  boost::system::error_code ignored;
  from->close(ignored);
  to->close(ignored);
}

}  // namespace

class LoopbackProxy::Impl {
 public:
  Impl() {
    acceptor_.open(tcp::v4());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_.io(), accept_loop(), asio::detached);
  }
  ~Impl() { io_.stop(); }

  std::uint16_t port() const { return port_; }
  std::vector<std::string> request_lines() const {
    std::lock_guard lock(mutex_);
    return request_lines_;
  }
  std::vector<std::string> authorizations() const {
    std::lock_guard lock(mutex_);
    return authorizations_;
  }

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [error, socket] = co_await acceptor_.async_accept(proxy_use_tuple);
      if (error == asio::error::operation_aborted) co_return;
      if (!error)
        asio::co_spawn(io_.io(), handle(std::make_shared<tcp::socket>(std::move(socket))), asio::detached);
    }
  }

  asio::awaitable<void> handle(std::shared_ptr<tcp::socket> client) {
    beast::flat_buffer buffer;
    http::request_parser<http::empty_body> parser;
    parser.eager(false);  // stop after the head: a body is relayed as raw bytes
    auto [error, bytes] = co_await http::async_read_header(*client, buffer, parser, proxy_use_tuple);
    if (error) co_return;
    auto &request = parser.get();
    const bool tunnel = request.method() == http::verb::connect;
    remember(request);
    const auto port = loopback_port(request.target());
    if (!port) {
      co_await reply(*client, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      co_return;
    }
    auto upstream = std::make_shared<tcp::socket>(io_.io());
    auto [connect_error] = co_await upstream->async_connect(
        tcp::endpoint(asio::ip::address_v4::loopback(), *port), proxy_use_tuple);
    if (connect_error) {
      co_await reply(*client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      co_return;
    }
    if (tunnel) {
      co_await reply(*client, "HTTP/1.1 200 Connection established\r\n\r\n");
    } else {
      // Forward the head unchanged (absolute-form target included), then whatever follows.
      request.erase(http::field::proxy_authorization);
      http::request_serializer<http::empty_body> head(request);
      auto [head_error, written] = co_await http::async_write_header(*upstream, head, proxy_use_tuple);
      if (head_error) co_return;
    }
    if (buffer.size() > 0) {
      auto [write_error, written] = co_await asio::async_write(*upstream, buffer.data(), proxy_use_tuple);
      if (write_error) co_return;
    }
    asio::co_spawn(io_.io(), relay(upstream, client), asio::detached);
    co_await relay(client, upstream);
  }

  void remember(const http::request<http::empty_body> &request) {
    std::lock_guard lock(mutex_);
    request_lines_.push_back(std::string(request.method_string()) + " " + std::string(request.target()));
    if (auto found = request.find(http::field::proxy_authorization); found != request.end())
      authorizations_.push_back(std::string(found->value()));
  }

  static asio::awaitable<void> reply(tcp::socket &socket, std::string_view text) {
    co_await asio::async_write(socket, asio::buffer(text), proxy_use_tuple);
  }

  IoThread io_;
  tcp::acceptor acceptor_{io_.io()};
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::string> request_lines_;
  std::vector<std::string> authorizations_;
};

LoopbackProxy::LoopbackProxy() : impl_(std::make_unique<Impl>()) {}
LoopbackProxy::~LoopbackProxy() = default;
std::uint16_t LoopbackProxy::port() const { return impl_->port(); }
std::string LoopbackProxy::url() const { return "http://127.0.0.1:" + std::to_string(port()); }
std::vector<std::string> LoopbackProxy::request_lines() const { return impl_->request_lines(); }
std::vector<std::string> LoopbackProxy::authorizations() const { return impl_->authorizations(); }

}  // namespace amplifier::loopback
