// bench_serve_floor: the relay floor that `bench_serve --floor` measures serve against (issue
// 29). The least a server can do for bench_serve's load on the same transports: it speaks just
// enough of serve's API for the load driver (`POST /v1/sessions` → 201 {id};
// `POST /v1/sessions/ID/messages` → an event stream), and for each prompt makes one call to the
// vendor through amp_transport (the HTTP/SSE client every provider uses) and writes each vendor
// event to the client as an SSE frame the moment it arrives, then a `turn:result`. No JSON
// parsing, no model, no hooks, no sessions, no tools (a tool session's turn ends at the tool
// call). Frames are written as serve writes them: a non-blocking sendmsg of one HTTP chunk by
// the thread that read the vendor's event, with whatever the socket did not take handed to the
// connection's thread. So serve's CPU per delta over this one's, measured in the same run, is
// what serve's work costs beyond moving the bytes.
//
// Started like `amplifier serve` by the bench harness: `bench_serve_floor serve --listen
// HOST:PORT --vendor URL` (other arguments are ignored); it prints serve's "listening on" line
// and exits on SIGTERM or SIGINT. A benchmark tool only: it runs no command and reads no file.
// Trust: the operator starts it by hand through bench_serve, which alone chooses its arguments;
// no plan, model, serve client or repository reaches it, and the one environment setting its
// HTTP client would read (the proxy variables) is dropped.
#include "amplifier/transport/transport.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <fmt/format.h>

#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace tp = amplifier::transport;
using tcp = net::ip::tcp;
constexpr auto kTuple = net::as_tuple(net::use_awaitable);

// One turn's event stream to its client. The transport's thread pushes chunks; the
// connection's thread writes what a full socket left over, and learns when the stream ended.
class Relay : public std::enable_shared_from_this<Relay> {
 public:
  Relay(tcp::socket &socket, net::steady_timer &done) : socket_(socket), done_(done) {}

  // Any thread. `frame` goes out as one HTTP chunk; `last` ends the body after it.
  void push(std::string_view frame, bool last) {
    char size_line[24];
    const auto end = fmt::format_to_n(size_line, sizeof size_line, "{:x}\r\n", frame.size()).out;
    const std::string_view tail = last ? "\r\n0\r\n\r\n" : "\r\n";
    const std::string_view parts[3] = {
        {size_line, static_cast<std::size_t>(end - size_line)}, frame, tail};
    std::lock_guard lock(mutex_);
    std::size_t sent = 0;
    if (!writing_ && !broken_) sent = send_now(parts);
    for (const auto part : parts) {
      const std::size_t skip = std::min(sent, part.size());
      pending_.append(part.substr(skip));
      sent -= skip;
    }
    ended_ = ended_ || last;
    if (!writing_ && (!pending_.empty() || ended_)) {
      writing_ = true;
      net::post(socket_.get_executor(), [self = shared_from_this()] { self->flush(); });
    }
  }

  bool broken() const {
    std::lock_guard lock(mutex_);
    return broken_;
  }

 private:
  // A non-blocking sendmsg of the chunk, as serve's direct writer does: the bytes it took.
  std::size_t send_now(const std::string_view (&parts)[3]) {
    iovec vec[3];
    for (int i = 0; i < 3; ++i) vec[i] = {const_cast<char *>(parts[i].data()), parts[i].size()};
    msghdr message{};
    message.msg_iov = vec;
    message.msg_iovlen = 3;
    ssize_t sent;
    do sent = ::sendmsg(socket_.native_handle(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) broken_ = true;
    return sent < 0 ? 0 : static_cast<std::size_t>(sent);
  }

  // The connection's thread: writes what is pending, then wakes the connection once ended.
  void flush() {
    std::unique_lock lock(mutex_);
    if (pending_.empty() || broken_) {
      writing_ = false;
      if (ended_ || broken_) done_.cancel();
      return;
    }
    auto out = std::make_shared<std::string>(std::move(pending_));
    pending_.clear();
    lock.unlock();
    net::async_write(socket_, net::buffer(*out), [self = shared_from_this(), out](auto ec, auto) {
      if (ec) {
        std::lock_guard broken_lock(self->mutex_);
        self->broken_ = true;
      }
      self->flush();
    });
  }

  tcp::socket &socket_;
  net::steady_timer &done_;
  mutable std::mutex mutex_;
  std::string pending_;
  bool writing_ = false;  // a flush is queued or running on the connection's thread
  bool ended_ = false;
  bool broken_ = false;
};

// The vendor's event type as serve names kernel events ("content_block_delta" →
// "content_block:delta"): only so that the driver counts the deltas.
std::string event_name(std::string_view type) {
  std::string name(type);
  if (name.starts_with("content_block_")) name[13] = ':';
  return name;
}

class FloorServer {
 public:
  FloorServer(std::string vendor_url) : vendor_url_(std::move(vendor_url)) {}

  int run(const std::string &listen) {
    const auto colon = listen.rfind(':');
    tcp::endpoint endpoint(net::ip::make_address(listen.substr(0, colon)),
                           static_cast<unsigned short>(std::stoi(listen.substr(colon + 1))));
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
    std::fprintf(stderr, "bench_serve_floor: listening on http://%s:%u\n",
                 endpoint.address().to_string().c_str(), acceptor_.local_endpoint().port());
    net::co_spawn(io_, accept_loop(), net::detached);
    net::signal_set signals(io_, SIGTERM, SIGINT);
    signals.async_wait([this](auto, int) { stop(); });
    auto vendor_work = net::make_work_guard(vendor_io_);
    std::thread vendor_thread([this] { vendor_io_.run(); });
    io_.run();
    vendor_work.reset();
    vendor_io_.stop();
    vendor_thread.join();
    return 0;
  }

 private:
  void stop() {
    acceptor_.close();
    io_.stop();
  }

  net::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(kTuple);
      if (ec == net::error::operation_aborted) co_return;
      if (ec) continue;
      net::co_spawn(io_, serve_connection(std::move(socket)), net::detached);
    }
  }

  net::awaitable<void> serve_connection(tcp::socket socket) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> request;
      if (auto [ec, n] = co_await http::async_read(socket, buffer, request, kTuple); ec) co_return;
      const std::string_view target = request.target();
      if (request.method() == http::verb::post && target == "/v1/sessions") {
        if (!co_await reply(socket, request, http::status::created,
                            fmt::format(R"({{"id":"floor-{}"}})", ++sessions_)))
          co_return;
      } else if (request.method() == http::verb::post && target.ends_with("/messages")) {
        if (!co_await relay_turn(socket, request)) co_return;
      } else if (!co_await reply(socket, request, http::status::not_found,
                                 R"({"error":"not found"})")) {
        co_return;
      }
    }
  }

  net::awaitable<bool> reply(tcp::socket &socket, const http::request<http::string_body> &request,
                             http::status status, std::string body) {
    http::response<http::string_body> response{status, request.version()};
    response.set(http::field::content_type, "application/json");
    response.keep_alive(request.keep_alive());
    response.body() = std::move(body);
    response.prepare_payload();
    auto [ec, n] = co_await http::async_write(socket, response, kTuple);
    co_return !ec && request.keep_alive();
  }

  // One vendor call, its events relayed as they come; true once the stream ended whole.
  net::awaitable<bool> relay_turn(tcp::socket &socket,
                                  const http::request<http::string_body> &request) {
    http::response<http::empty_body> head{http::status::ok, request.version()};
    head.set(http::field::content_type, "text/event-stream");
    head.set(http::field::cache_control, "no-cache");
    head.chunked(true);
    head.keep_alive(request.keep_alive());
    http::response_serializer<http::empty_body> serializer{head};
    if (auto [ec, n] = co_await http::async_write_header(socket, serializer, kTuple); ec)
      co_return false;

    net::steady_timer done(io_, net::steady_timer::time_point::max());
    auto relay = std::make_shared<Relay>(socket, done);
    tp::CallSpec spec;
    spec.request.url = vendor_url_ + "/v1/messages";
    spec.request.headers.add("content-type", "application/json");
    // The client's prompt rides along whole (the vendor picks its answer by a marker in it).
    spec.request.body = R"({"model":"floor","stream":true,"max_tokens":1024,"messages":[)"
                        R"({"role":"user","content":)" +
                        boost::json::serialize(boost::json::string(request.body())) + "}]}";
    spec.retry.max_retries = 0;
    spec.errors.provider = "floor";
    tp::CallHandlers handlers;
    handlers.on_event = [relay](const tp::SseEvent &event, tp::CallControl &) {
      std::string frame = "event: ";
      frame.append(event_name(event.type)).append("\ndata: ").append(event.data).append("\n\n");
      relay->push(frame, false);
    };
    handlers.on_complete = [relay](tp::CallResult result) {
      const std::string status = result.error ? "error" : "success";
      relay->push(fmt::format("event: turn:result\ndata: {{\"data\":{{\"status\":\"{}\"}}}}\n\n",
                              status),
                  true);
    };
    tp::CancelHandle call = tp::start_call(vendor_client_, std::move(spec), std::move(handlers));
    co_await done.async_wait(kTuple);  // cancelled by the relay once it wrote the last chunk
    if (relay->broken()) call.cancel();
    co_return !relay->broken() && request.keep_alive();
  }

  const std::string vendor_url_;
  net::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  long sessions_ = 0;  // only the one io thread counts
  net::io_context vendor_io_{1};
  // Straight to the loopback vendor: the proxy variables the options read from the environment
  // are dropped, so nothing the environment says can route the bench elsewhere.
  tp::HttpClient vendor_client_{vendor_io_, [] {
                                  tp::HttpClientOptions options;
                                  options.proxy = {};
                                  return options;
                                }()};
};

}  // namespace

int main(int argc, char **argv) {
  std::string listen = "127.0.0.1:0", vendor;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--listen") listen = argv[++i];
    else if (arg == "--vendor") vendor = argv[++i];
  }
  if (vendor.empty()) {
    std::fprintf(stderr, "usage: bench_serve_floor serve --listen HOST:PORT --vendor URL\n");
    return 2;
  }
  try {
    return FloorServer(vendor).run(listen);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_serve_floor: %s\n", e.what());
    return 1;
  }
}
