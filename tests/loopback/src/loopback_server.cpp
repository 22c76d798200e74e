// The scripted server: one coroutine per connection reads requests with Beast and writes the
// scripted responses byte by byte (so framing, pacing and faults are exactly as scripted).
#include "amplifier/loopback/loopback_server.hpp"

#include "io_thread.hpp"
#include "test_certificates.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>

namespace amplifier::loopback {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

namespace {

std::string reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "Status";
  }
}

std::string response_head(const ScriptedResponse &response) {
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " +
                     reason_phrase(response.status) + "\r\n";
  for (const auto &[name, value] : response.headers) head += name + ": " + value + "\r\n";
  switch (response.framing) {
    case Framing::chunked: head += "Transfer-Encoding: chunked\r\n"; break;
    case Framing::content_length:
      head += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
      break;
    case Framing::close_delimited: break;
  }
  if (response.close_after || response.framing == Framing::close_delimited)
    head += "Connection: close\r\n";
  return head + "\r\n";
}

std::vector<std::string_view> split_into_pieces(const ScriptedResponse &response) {
  std::vector<std::string_view> pieces;
  std::string_view rest = response.body;
  std::size_t index = 0;
  while (!rest.empty()) {
    std::size_t size = rest.size();
    if (!response.piece_sizes.empty())
      size = std::max<std::size_t>(1, response.piece_sizes[index++ % response.piece_sizes.size()]);
    pieces.push_back(rest.substr(0, size));
    rest.remove_prefix(std::min(size, rest.size()));
  }
  return pieces;
}

std::string hex(std::size_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value % 16]);
    value /= 16;
  } while (value);
  return out;
}

// `piece` with every `placeholder` overwritten by the current steady_clock time in ns.
std::string stamped(std::string_view piece, std::string_view placeholder) {
  std::string out(piece);
  const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count();
  std::string digits = std::to_string(now);
  if (digits.size() < placeholder.size()) digits.insert(0, placeholder.size() - digits.size(), '0');
  digits.resize(placeholder.size());
  for (auto at = out.find(placeholder); at != std::string::npos;
       at = out.find(placeholder, at + placeholder.size()))
    out.replace(at, placeholder.size(), digits);
  return out;
}

tcp::socket &lowest(tcp::socket &socket) { return socket; }
tcp::socket &lowest(beast::ssl_stream<tcp::socket> &stream) { return stream.next_layer(); }

}  // namespace

class LoopbackServer::Impl {
 public:
  explicit Impl(ServerOptions options) : options_(options) {
    if (options_.tls) setup_tls();
    acceptor_.open(tcp::v4());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    acceptor_.listen(asio::socket_base::max_listen_connections);
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_.io(), accept_loop(), asio::detached);
  }

  ~Impl() { io_.stop(); }  // coroutine frames (and their sockets) die with the io_context

  std::uint16_t port() const { return port_; }
  bool tls() const { return options_.tls; }
  const std::string &ca_pem() const { return ca_pem_; }

  void enqueue(ScriptedResponse response) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(response));
  }
  void set_default_response(ScriptedResponse response) {
    std::lock_guard lock(mutex_);
    default_response_ = std::move(response);
  }
  void set_responder(Responder responder) {
    std::lock_guard lock(mutex_);
    responder_ = std::move(responder);
  }
  std::vector<RecordedRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::size_t accepted() const {
    std::lock_guard lock(mutex_);
    return accepted_;
  }
  std::size_t closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }
  bool wait_until(std::chrono::milliseconds timeout, auto predicate) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return predicate(); });
  }
  std::size_t request_count_locked() const { return requests_.size(); }
  std::size_t closed_count_locked() const { return closed_; }

 private:
  void setup_tls() {
    const TestCertificates certificates = generate_test_certificates();
    ca_pem_ = certificates.ca_pem;
    tls_context_.use_certificate_chain(asio::buffer(certificates.server_cert_pem));
    tls_context_.use_private_key(asio::buffer(certificates.server_key_pem), asio::ssl::context::pem);
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [error, socket] = co_await acceptor_.async_accept(use_tuple);
      if (error) {
        if (error == asio::error::operation_aborted) co_return;
        continue;  // e.g. EMFILE under load: keep serving the connections we have
      }
      std::uint64_t connection_id = 0;
      {
        std::lock_guard lock(mutex_);
        connection_id = ++accepted_;
      }
      asio::co_spawn(io_.io(), run_connection(std::move(socket), connection_id), asio::detached);
    }
  }

  asio::awaitable<void> run_connection(tcp::socket socket, std::uint64_t connection_id) {
    if (options_.tls) {
      beast::ssl_stream<tcp::socket> stream(std::move(socket), tls_context_);
      auto [error] = co_await stream.async_handshake(asio::ssl::stream_base::server, use_tuple);
      if (!error) co_await serve(stream, connection_id);
      boost::system::error_code ignored;
      stream.next_layer().close(ignored);
    } else {
      co_await serve(socket, connection_id);
      boost::system::error_code ignored;
      socket.close(ignored);
    }
    {
      std::lock_guard lock(mutex_);
      ++closed_;
    }
    changed_.notify_all();
  }

  template <class Stream>
  asio::awaitable<void> serve(Stream &stream, std::uint64_t connection_id) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(64 * 1024 * 1024);
      auto [error, bytes] = co_await http::async_read(stream, buffer, parser, use_tuple);
      if (error) co_return;
      const bool client_keeps_alive = parser.get().keep_alive();
      const ScriptedResponse response = next_response(record(parser.get(), connection_id));
      const bool keep_open = co_await respond(stream, response);
      if (!keep_open || !client_keeps_alive) co_return;
    }
  }

  // Keeps the request for requests(); returns it.
  RecordedRequest record(const http::request<http::string_body> &request,
                         std::uint64_t connection_id) {
    RecordedRequest recorded;
    recorded.method = std::string(request.method_string());
    recorded.target = std::string(request.target());
    for (const auto &field : request)
      recorded.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    recorded.body = request.body();
    recorded.connection_id = connection_id;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(recorded);
    }
    changed_.notify_all();
    return recorded;
  }

  ScriptedResponse next_response(const RecordedRequest &request) {
    Responder responder;
    {
      std::lock_guard lock(mutex_);
      responder = responder_;
    }
    if (responder)
      if (std::optional<ScriptedResponse> chosen = responder(request)) return std::move(*chosen);
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return default_response_;
    ScriptedResponse response = std::move(queue_.front());
    queue_.pop_front();
    return response;
  }

  asio::awaitable<void> pause(std::chrono::milliseconds duration) {
    if (duration <= std::chrono::milliseconds::zero()) co_return;
    asio::steady_timer timer(io_.io(), duration);
    co_await timer.async_wait(use_tuple);
  }

  // Writes the scripted response; returns whether the connection may serve another request.
  template <class Stream>
  asio::awaitable<bool> respond(Stream &stream, const ScriptedResponse &response) {
    co_await pause(response.head_delay);
    if (!co_await write(stream, response_head(response))) co_return false;
    std::size_t sent = 0;
    bool first = true;
    for (std::string_view piece : split_into_pieces(response)) {
      if (!first) co_await pause(response.piece_interval);
      first = false;
      if (response.fault != Fault::none && sent + piece.size() > response.fault_after_bytes) {
        piece = piece.substr(0, response.fault_after_bytes - sent);
        if (!piece.empty()) co_await write_piece(stream, response.framing, piece);
        co_await inject_fault(stream, response.fault);
        co_return false;
      }
      const bool stamp = !response.send_time_placeholder.empty() &&
                         piece.find(response.send_time_placeholder) != std::string_view::npos;
      const std::string with_time = stamp ? stamped(piece, response.send_time_placeholder) : "";
      if (!co_await write_piece(stream, response.framing, stamp ? with_time : piece)) co_return false;
      sent += piece.size();
    }
    if (response.fault != Fault::none) {  // a fault placed at (or past) the end of the body
      co_await inject_fault(stream, response.fault);
      co_return false;
    }
    if (response.framing == Framing::chunked && !co_await write(stream, "0\r\n\r\n")) co_return false;
    co_return !response.close_after && !response.close_silently_after &&
        response.framing != Framing::close_delimited;
  }

  template <class Stream>
  asio::awaitable<bool> write_piece(Stream &stream, Framing framing, std::string_view piece) {
    if (framing != Framing::chunked) co_return co_await write(stream, piece);
    co_return co_await write(stream, hex(piece.size()) + "\r\n" + std::string(piece) + "\r\n");
  }

  template <class Stream>
  asio::awaitable<bool> write(Stream &stream, std::string_view bytes) {
    auto [error, written] = co_await asio::async_write(stream, asio::buffer(bytes), use_tuple);
    co_return !error;
  }

  template <class Stream>
  asio::awaitable<void> inject_fault(Stream &stream, Fault fault) {
    boost::system::error_code ignored;
    switch (fault) {
      case Fault::reset:
        // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        lowest(stream).set_option(tcp::socket::linger(true, 0), ignored);
        lowest(stream).close(ignored);
        break;
      case Fault::close:
        lowest(stream).shutdown(tcp::socket::shutdown_both, ignored);
        lowest(stream).close(ignored);
        break;
      case Fault::stall: {
        // Hold the connection silently until the client gives up and closes it.
        char byte = 0;
        co_await lowest(stream).async_read_some(asio::buffer(&byte, 1), use_tuple);
        break;
      }
      case Fault::none: break;
    }
  }

  ServerOptions options_;
  IoThread io_;
  tcp::acceptor acceptor_{io_.io()};
  asio::ssl::context tls_context_{asio::ssl::context::tls_server};
  std::string ca_pem_;
  std::uint16_t port_ = 0;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<ScriptedResponse> queue_;
  Responder responder_;
  ScriptedResponse default_response_ =
      ScriptedResponse::json(500, R"({"error":{"type":"api_error","message":"no scripted response"}})");
  std::vector<RecordedRequest> requests_;
  std::size_t accepted_ = 0;
  std::size_t closed_ = 0;
};

LoopbackServer::LoopbackServer(ServerOptions options) : impl_(std::make_unique<Impl>(options)) {}
LoopbackServer::~LoopbackServer() = default;

std::uint16_t LoopbackServer::port() const { return impl_->port(); }
std::string LoopbackServer::base_url() const {
  return std::string(impl_->tls() ? "https" : "http") + "://127.0.0.1:" + std::to_string(port());
}
const std::string &LoopbackServer::ca_pem() const { return impl_->ca_pem(); }
void LoopbackServer::enqueue(ScriptedResponse response) { impl_->enqueue(std::move(response)); }
void LoopbackServer::set_default_response(ScriptedResponse response) {
  impl_->set_default_response(std::move(response));
}
void LoopbackServer::set_responder(Responder responder) {
  impl_->set_responder(std::move(responder));
}
std::vector<RecordedRequest> LoopbackServer::requests() const { return impl_->requests(); }
std::size_t LoopbackServer::connections_accepted() const { return impl_->accepted(); }
std::size_t LoopbackServer::connections_closed() const { return impl_->closed(); }
bool LoopbackServer::wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const {
  return impl_->wait_until(timeout, [&] { return impl_->request_count_locked() >= count; });
}
bool LoopbackServer::wait_for_closed_connections(std::size_t count,
                                                 std::chrono::milliseconds timeout) const {
  return impl_->wait_until(timeout, [&] { return impl_->closed_count_locked() >= count; });
}

}  // namespace amplifier::loopback
