#include "http_server.hpp"

#include "auth.hpp"
#include "metrics.hpp"
#include "request_guard.hpp"

#include "amplifier/log.hpp"
#include "amplifier/worker_pool.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <cerrno>
#include <future>
#include <thread>
#include <utility>
#include <vector>

namespace amplifier::host::serve {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
namespace {

constexpr auto kTuple = net::as_tuple(net::use_awaitable);
using Clock = std::chrono::steady_clock;
// An idle event stream sends an SSE comment this often: proxies keep it open, and a client that
// went away is noticed.
constexpr auto kStreamKeepAlive = std::chrono::seconds(15);
// While the process is out of descriptors the connection stays queued and accepting it fails
// at once again: the acceptor pauses this long between tries instead of spinning.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);
using Request = http::request<http::string_body>;

tcp::endpoint parse_listen(const std::string &listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--listen must be HOST:PORT");
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) throw std::runtime_error(fmt::format("--listen: '{}' is not an IP address", host));
  int port = -1;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (...) {
  }
  if (port < 0 || port > 65535) throw std::runtime_error("--listen: the port must be 0..65535");
  return {address, static_cast<unsigned short>(port)};
}

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }
std::string_view query_of(std::string_view target) {
  const auto mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
}

// The method the Api answers: HEAD is GET, written without its body (write_plain).
std::string_view api_method(const Request &request) {
  return request.method() == http::verb::head ? "GET" : request.method_string();
}

// Runs the Api on a worker thread and resumes the connection's coroutine (on `executor`, its
// strand) with the answer. The work is counted (Api::track_work) from before it is queued
// until the Api has answered: the Api outlives it. Not a coroutine itself: GCC 12 mishandles a
// coroutine whose initiation lambda captures by move.
net::awaitable<ApiResponse> on_workers(Api &api, net::any_io_executor executor,
                                       std::shared_ptr<const ApiRequest> request) {
  return net::async_initiate<decltype(net::use_awaitable), void(ApiResponse)>(
      [&api, executor, request](auto handler) {
        auto resume = std::make_shared<decltype(handler)>(std::move(handler));
        WorkerPool::shared().submit([&api, executor, resume, request, working = api.track_work()] {
          auto response = std::make_shared<ApiResponse>(api.handle(*request));
          net::post(executor, [resume, response] { (*resume)(std::move(*response)); });
        });
      },
      net::use_awaitable);
}

// Times an event stream's first event: from its request read to the first event's bytes handed
// to the socket, by the connection or by a producer (the stream's protocol orders the two).
class FirstEventClock {
 public:
  FirstEventClock(Metrics &metrics, Clock::time_point received)
      : metrics_(metrics), received_(received) {}
  void sent() {
    if (std::exchange(recorded_, true)) return;
    metrics_.first_event(std::chrono::duration<double>(Clock::now() - received_).count());
  }

 private:
  Metrics &metrics_;
  const Clock::time_point received_;
  bool recorded_ = false;
};

// The chunks of an event stream that producers send themselves (EventStream's direct writer):
// a non-blocking sendmsg of the chunk's size line, the frame and its CRLF. Called with the
// stream's lock held, never concurrently with the connection's own writes.
class DirectChunks {
 public:
  DirectChunks(int socket, FirstEventClock &first) : socket_(socket), first_(first) {}

  DirectWrite write(std::string_view frame) {
    char size_line[24];
    const auto end = fmt::format_to_n(size_line, sizeof size_line, "{:x}\r\n", frame.size()).out;
    iovec parts[3] = {{size_line, static_cast<std::size_t>(end - size_line)},
                      {const_cast<char *>(frame.data()), frame.size()},
                      {const_cast<char *>("\r\n"), 2}};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = 3;
    ssize_t sent;
    do sent = ::sendmsg(socket_, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      broken_ = true;
      return DirectWrite::Broken;
    }
    const std::size_t done = sent < 0 ? 0 : static_cast<std::size_t>(sent);
    if (done > 0) first_.sent();
    std::size_t total = 0;
    for (const auto &part : parts) total += part.iov_len;
    if (done == total) return DirectWrite::Sent;
    // The rest of this chunk goes out through the connection, ahead of anything pushed later.
    for (const auto &part : parts)
      unsent_.append(static_cast<const char *>(part.iov_base), part.iov_len);
    unsent_.erase(0, done);
    return DirectWrite::Kept;
  }

  // The connection's side, after EventStream::take(): what a producer could not send.
  bool broken() const { return broken_; }
  std::string take_unsent() { return std::exchange(unsent_, {}); }

 private:
  const int socket_;
  FirstEventClock &first_;
  std::string unsent_;
  bool broken_ = false;
};

// What an event stream's connection writes next: the rest of a chunk a producer began (raw),
// then frames to send as one chunk.
struct StreamPiece {
  std::string unsent;
  std::string frames;
};

// EMFILE, ENFILE and their kin: this process (or the system) has no descriptor or buffer for
// another connection until some close.
bool out_of_descriptors(const boost::system::error_code &ec) {
  return ec == net::error::no_descriptors || ec == net::error::no_buffer_space ||
         ec == net::error::no_memory || ec == boost::system::errc::too_many_files_open_in_system;
}

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  Api &api;
  std::atomic<std::size_t> streams{0};  // before io: the coroutines io destroys count down
  net::io_context io{static_cast<int>(options.io_threads)};
  tcp::acceptor acceptor{io};
  std::vector<std::thread> threads;

  Impl(HttpServerOptions o, Api &a) : options(std::move(o)), api(a) {}

  net::awaitable<void> accept_loop();
  net::awaitable<void> pause_accepting(net::steady_timer &pause);
  net::awaitable<void> serve_connection(beast::tcp_stream stream);
  net::awaitable<bool> write_plain(beast::tcp_stream &stream, const Request &request,
                                   ApiResponse response, bool keep_alive);
  net::awaitable<bool> write_stream(beast::tcp_stream &stream, const Request &request,
                                    const ApiResponse &response, bool keep_alive,
                                    Clock::time_point received);
  net::awaitable<std::optional<StreamPiece>> next_piece(EventStream &events,
                                                        net::steady_timer &timer,
                                                        DirectChunks *direct);
  std::optional<ApiResponse> gatekeep(const Request &request) const;
  void add_cors(http::fields &fields, const Request &request) const;
};

net::awaitable<void> HttpServer::Impl::pause_accepting(net::steady_timer &pause) {
  pause.expires_after(kAcceptBackoff);
  co_await pause.async_wait(kTuple);
}

net::awaitable<void> HttpServer::Impl::accept_loop() {
  net::steady_timer pause(io);
  bool exhausted = false;  // said once per episode, not at every try
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(net::make_strand(io), kTuple);
    if (ec == net::error::operation_aborted || !acceptor.is_open()) co_return;
    if (out_of_descriptors(ec)) {
      if (!std::exchange(exhausted, true))
        log(LogLevel::Warning, "serve",
            fmt::format("cannot accept connections: {}; new ones wait until some close",
                        ec.message()));
      co_await pause_accepting(pause);
      continue;
    }
    if (ec) continue;  // a connection that failed before it was accepted (reset)
    if (std::exchange(exhausted, false))
      log(LogLevel::Warning, "serve", "accepting connections again");
    // Events are small writes sent as they come: Nagle would hold each behind the client's
    // delayed ACK of the one before (40 ms).
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    net::co_spawn(socket.get_executor(), serve_connection(beast::tcp_stream(std::move(socket))),
                  net::detached);
  }
}

void HttpServer::Impl::add_cors(http::fields &fields, const Request &request) const {
  if (options.cors_origin.empty()) return;
  const auto origin = request[http::field::origin];
  if (options.cors_origin != "*" && origin != options.cors_origin) return;
  fields.set(http::field::access_control_allow_origin,
             options.cors_origin == "*" ? std::string("*") : options.cors_origin);
  fields.set(http::field::vary, "Origin");
}

// What is answered before the Api sees the request (request_guard.hpp says why each check):
// a Host that is not this server's, a foreign Origin, a CORS preflight, a POST or DELETE that
// is not JSON, the page's token login, a missing token.
std::optional<ApiResponse> HttpServer::Impl::gatekeep(const Request &request) const {
  const std::string_view host = request[http::field::host];
  if (!host_allowed(host, options.allowed_hosts))
    return error_response(
        403, "forbidden_host",
        fmt::format("Host '{}' does not name this server: use its IP address or localhost, or "
                    "start serve with --allowed-host NAME",
                    host.substr(0, 100)));
  const std::string_view origin = request[http::field::origin];
  if (!origin_allowed(origin, host, options.cors_origin))
    return error_response(403, "forbidden_origin",
                          fmt::format("requests from pages at '{}' are refused (--cors-origin "
                                      "names the one other origin allowed)",
                                      origin.substr(0, 100)));
  if (request.method() == http::verb::options && !options.cors_origin.empty()) {
    ApiResponse preflight;
    preflight.status = 204;
    return preflight;
  }
  const bool writes =
      request.method() == http::verb::post || request.method() == http::verb::delete_;
  if (writes && !is_json_content_type(request[http::field::content_type]))
    return error_response(415, "unsupported_media_type",
                          "POST and DELETE requests must say Content-Type: application/json");
  if (!options.token) return std::nullopt;
  if (api.is_public(api_method(request), path_of(request.target()))) return std::nullopt;
  if (bearer_matches(request[http::field::authorization], *options.token)) return std::nullopt;
  return error_response(401, "unauthorized",
                        "this server needs its token: open the URL serve printed at start, or "
                        "send 'Authorization: Bearer TOKEN' (the token is in the serve-token "
                        "file under the server user's config folder)");
}

net::awaitable<bool> HttpServer::Impl::write_plain(beast::tcp_stream &stream,
                                                   const Request &request, ApiResponse response,
                                                   bool keep_alive) {
  http::response<http::string_body> reply{static_cast<http::status>(response.status),
                                          request.version()};
  if (response.status != 204 && response.status != 304)
    reply.set(http::field::content_type, response.content_type);
  for (const auto &[name, value] : response.headers) reply.set(name, value);
  if (!response.allow.empty())
    reply.set(http::field::allow, fmt::format("{}", fmt::join(response.allow, ", ")));
  if (request.method() == http::verb::options) {
    reply.set(http::field::access_control_allow_methods, "GET, POST, DELETE, OPTIONS");
    reply.set(http::field::access_control_allow_headers, "authorization, content-type");
  }
  if (response.status == 401) reply.set(http::field::www_authenticate, "Bearer");
  add_cors(reply, request);
  reply.body() = std::move(response.body);
  reply.keep_alive(keep_alive);
  reply.prepare_payload();
  // A 304's Content-Length would have to be the cached file's, not 0: none is sent.
  if (response.status == 304) reply.erase(http::field::content_length);
  if (request.method() == http::verb::head) reply.body().clear();  // the GET's headers only
  stream.expires_after(options.idle_timeout);
  auto [ec, n] = co_await http::async_write(stream, reply, kTuple);
  co_return !ec && keep_alive;
}

// The next bytes of `events` to write: nullopt once it ended (or the client is gone); nothing
// in either part after kStreamKeepAlive without any. While it waits, producers write their
// frames themselves through `direct` (if any).
net::awaitable<std::optional<StreamPiece>> HttpServer::Impl::next_piece(EventStream &events,
                                                                        net::steady_timer &timer,
                                                                        DirectChunks *direct) {
  StreamPiece piece;
  for (bool keep_alive_due = false;;) {
    const bool open = events.take(piece.frames);
    if (direct && direct->broken()) co_return std::nullopt;
    // What a producer left of its last chunk goes out even when the stream ended just after.
    if (direct) piece.unsent = direct->take_unsent();
    if (!piece.frames.empty() || !piece.unsent.empty() || (open && keep_alive_due)) co_return piece;
    if (!open) co_return std::nullopt;
    if (!events.park()) continue;
    // The waker cancels the timer through this strand, so it cannot slip in between park()
    // above and this wait. A waker that ran for frames already taken wakes it with nothing new:
    // it waits on, for the same keep-alive.
    timer.expires_after(kStreamKeepAlive);
    for (;;) {
      auto [ec] = co_await timer.async_wait(kTuple);
      if (ec != net::error::operation_aborted) keep_alive_due = true;
      if (keep_alive_due || !events.parked()) break;
    }
  }
}

net::awaitable<bool> HttpServer::Impl::write_stream(beast::tcp_stream &stream,
                                                    const Request &request,
                                                    const ApiResponse &response, bool keep_alive,
                                                    Clock::time_point received) {
  EventStream &events = *response.stream;
  auto timer = std::make_shared<net::steady_timer>(stream.get_executor());
  events.set_waker([timer, executor = stream.get_executor()] {
    net::post(executor, [timer] { timer->cancel(); });
  });
  streams++;
  // Declared before `done`, so they outlive the abandon() that stops producers writing to them.
  FirstEventClock first(api.metrics(), received);
  DirectChunks direct(stream.socket().native_handle(), first);
  struct Done {
    EventStream &events;
    std::atomic<std::size_t> &streams;
    ~Done() {
      events.abandon();  // drops the waker and the direct writer; a running turn goes on unwatched
      streams--;
    }
  } done{events, streams};
  stream.expires_never();
  if (!events.sse()) {  // one JSON document, sent whole once the turn has produced it
    std::string body;
    while (auto piece = co_await next_piece(events, *timer, nullptr)) body += piece->frames;
    ApiResponse whole;
    whole.status = events.status();
    whole.content_type = response.content_type;
    whole.body = std::move(body);
    co_return co_await write_plain(stream, request, std::move(whole), keep_alive);
  }
  http::response<http::empty_body> head{http::status::ok, request.version()};
  head.set(http::field::content_type, "text/event-stream");
  head.set(http::field::cache_control, "no-cache");
  add_cors(head, request);
  head.chunked(true);
  head.keep_alive(keep_alive);
  http::response_serializer<http::empty_body> serializer{head};
  if (auto [ec, n] = co_await http::async_write_header(stream, serializer, kTuple); ec)
    co_return false;
  events.set_direct_writer([&direct](std::string_view frame) { return direct.write(frame); });
  static constexpr std::string_view kKeepAlive = ": keep-alive\n\n";
  while (auto piece = co_await next_piece(events, *timer, &direct)) {
    const bool idle = piece->unsent.empty() && piece->frames.empty();
    if (!piece->unsent.empty()) {
      auto [ec, n] = co_await net::async_write(stream, net::buffer(piece->unsent), kTuple);
      if (ec) co_return false;
    }
    if (idle || !piece->frames.empty()) {
      const net::const_buffer body = idle ? net::buffer(kKeepAlive.data(), kKeepAlive.size())
                                          : net::const_buffer(net::buffer(piece->frames));
      auto [ec, n] = co_await net::async_write(stream, http::make_chunk(body), kTuple);
      if (ec) co_return false;  // the client went away
    }
    if (!idle) first.sent();
  }
  if (direct.broken()) co_return false;
  auto [ec, n] = co_await net::async_write(stream, http::make_chunk_last(), kTuple);
  co_return !ec && keep_alive;
}

net::awaitable<void> HttpServer::Impl::serve_connection(beast::tcp_stream stream) {
  beast::flat_buffer buffer;
  for (bool keep_alive = true; keep_alive;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
    parser.body_limit(options.max_body_bytes);
    stream.expires_after(options.idle_timeout);
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, kTuple);
    if (ec == http::error::body_limit || ec == http::error::header_limit) {
      Request partial = parser.get();
      co_await write_plain(
          stream, partial,
          error_response(
              413, "too_large",
              fmt::format("the request is larger than the limit ({} header bytes, {} body bytes)",
                          options.max_header_bytes, options.max_body_bytes)),
          false);
      break;
    }
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted)
      break;
    if (ec) {
      Request partial;
      co_await write_plain(stream, partial,
                           error_response(400, "bad_request",
                                          fmt::format("malformed HTTP request: {}", ec.message())),
                           false);
      break;
    }
    const auto received = Clock::now();
    Request request = parser.release();
    keep_alive = request.keep_alive();
    ApiResponse response;
    // Counted until its answer is written (a drain waits for that before closing connections);
    // an event stream is counted as an open stream instead, for as long as it runs.
    std::shared_ptr<void> answering;
    if (auto refused = gatekeep(request)) {
      response = std::move(*refused);
    } else {
      auto api_request = std::make_shared<const ApiRequest>(
          ApiRequest{std::string(api_method(request)), std::string(path_of(request.target())),
                     std::move(request.body()), std::string(request[http::field::if_none_match]),
                     std::string(query_of(request.target()))});
      answering = api.track_request();
      response = co_await on_workers(api, stream.get_executor(), std::move(api_request));
    }
    if (response.stream) answering.reset();
    keep_alive = response.stream
                     ? co_await write_stream(stream, request, response, keep_alive, received)
                     : co_await write_plain(stream, request, std::move(response), keep_alive);
    answering.reset();
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

bool listen_is_loopback(const std::string &listen) {
  return parse_listen(listen).address().is_loopback();
}

HttpServer::HttpServer(HttpServerOptions options, Api &api)
    : impl_(std::make_unique<Impl>(std::move(options), api)) {
  const tcp::endpoint endpoint = parse_listen(impl_->options.listen);
  boost::system::error_code ec;
  auto &acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("cannot listen on {}: {}", impl_->options.listen, ec.message()));
  net::co_spawn(impl_->io, impl_->accept_loop(), net::detached);
  for (std::size_t i = 0; i < std::max<std::size_t>(1, impl_->options.io_threads); ++i)
    impl_->threads.emplace_back([this] { impl_->io.run(); });
}

HttpServer::~HttpServer() { stop(); }

std::string HttpServer::address() const {
  const auto endpoint = impl_->acceptor.local_endpoint();
  const auto host = endpoint.address().to_string();
  return endpoint.address().is_v6() ? fmt::format("[{}]:{}", host, endpoint.port())
                                    : fmt::format("{}:{}", host, endpoint.port());
}

bool HttpServer::loopback() const {
  return impl_->acceptor.local_endpoint().address().is_loopback();
}

void HttpServer::wait_for_signal() {
  net::signal_set signals(impl_->io, SIGTERM, SIGINT);
  std::promise<int> received;
  signals.async_wait(
      [&received](const boost::system::error_code &, int signal) { received.set_value(signal); });
  received.get_future().wait();
}

void HttpServer::stop_accepting() {
  std::promise<void> closed;
  net::post(impl_->acceptor.get_executor(), [this, &closed] {
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    closed.set_value();
  });
  closed.get_future().wait();
}

std::size_t HttpServer::open_streams() const { return impl_->streams.load(); }

void HttpServer::stop() {
  if (impl_->threads.empty()) return;
  impl_->io.stop();
  for (auto &t : impl_->threads) t.join();
  impl_->threads.clear();
}

}  // namespace amplifier::host::serve
