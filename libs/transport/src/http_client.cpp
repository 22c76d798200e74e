#include "amplifier/transport/http_client.hpp"

#include "amplifier/transport/error_mapping.hpp"
#include "client_impl.hpp"
#include "http_exchange.hpp"
#include "tls_setup.hpp"

#include <boost/asio/post.hpp>

namespace amplifier::transport {

HttpClient::Impl::Impl(boost::asio::io_context &io_context, HttpClientOptions client_options)
    : io(io_context),
      strand(boost::asio::make_strand(io_context)),
      options(std::move(client_options)),
      pool(options.max_idle_connections_per_host, options.idle_connection_ttl) {
  if (!options.tls.verify_peer)
    log(LogLevel::warning, "TLS certificate verification is disabled for this HTTP client");
}

const detail::SharedTlsContext &HttpClient::Impl::tls() {
  std::call_once(tls_once_, [this] {
    tls_ = detail::shared_tls_context(options.tls);
    if (tls_.error) log(LogLevel::error, tls_.error->message);
  });
  return tls_;
}

CancelHandle HttpClient::Impl::start(HttpRequest request, ResponseHandlers handlers) {
  auto exchange = detail::Exchange::create(shared_from_this(), std::move(request), std::move(handlers));
  exchange->start();
  return CancelHandle(exchange);
}

void HttpClient::Impl::shutdown() {
  shut_down_ = true;
  // cancel() only posts, so running_ does not change under the loop.
  for (const auto &[key, weak] : running_)
    if (auto operation = weak.lock()) operation->cancel();
  pool.close_all();
}

void HttpClient::Impl::log(LogLevel level, std::string_view message) const {
  if (!options.log) return;
  try {
    options.log(level, message);
  } catch (...) {
    // A logging sink that throws must not take a request down with it.
  }
}

void HttpClient::Impl::track(const Cancellable *key, std::weak_ptr<Cancellable> operation) {
  running_.emplace(key, std::move(operation));
}

void HttpClient::Impl::forget(const Cancellable *key) { running_.erase(key); }

HttpClient::HttpClient(boost::asio::io_context &io, HttpClientOptions options)
    : impl_(std::make_shared<Impl>(io, std::move(options))) {}

HttpClient::~HttpClient() {
  boost::asio::post(impl_->strand, [impl = impl_] { impl->shutdown(); });
}

CancelHandle HttpClient::start(HttpRequest request, ResponseHandlers handlers) {
  return impl_->start(std::move(request), std::move(handlers));
}

const HttpClientOptions &HttpClient::options() const { return impl_->options; }

boost::asio::io_context &HttpClient::io_context() const { return impl_->io; }

std::size_t HttpClient::connections_opened() const { return impl_->connections_opened.load(); }

}  // namespace amplifier::transport
