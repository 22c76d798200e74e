// HttpClient against the loopback server: framing, keep-alive, timeouts, faults, cancel.
#include "test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <cstdio>
#include <thread>
#include <boost/asio/read.hpp>

namespace amplifier::transport {
namespace {

using loopback::Fault;
using loopback::Framing;
using loopback::LoopbackServer;
using loopback::ScriptedResponse;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

HttpRequest get(const LoopbackServer &server, std::string path = "/v1/ping") {
  HttpRequest request;
  request.method = "GET";
  request.url = server.base_url() + path;
  return request;
}

ScriptedResponse text_response(std::string body, Framing framing, std::vector<std::size_t> pieces = {}) {
  ScriptedResponse response;
  response.headers = {{"Content-Type", "text/plain"}, {"X-Vendor-Header", "42"}};
  response.body = std::move(body);
  response.framing = framing;
  response.piece_sizes = std::move(pieces);
  return response;
}

TEST_CASE("http: content-length response, headers looked up case-insensitively") {
  LoopbackServer server;
  server.enqueue(text_response("hello world", Framing::content_length));
  testing::ClientThread thread;
  const auto response = testing::fetch(thread.client(), get(server));
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.head.status == 200);
  CHECK(response.head.reason == "OK");
  CHECK(response.head.headers.find("x-vendor-header") == std::optional<std::string_view>("42"));
  CHECK(response.head.headers.find("CONTENT-TYPE") == std::optional<std::string_view>("text/plain"));
  CHECK(response.body == "hello world");
}

TEST_CASE("http: a POST is sent whole and chunked bodies are reassembled") {
  LoopbackServer server;
  std::string body;
  for (int i = 0; i < 500; ++i) body += "line " + std::to_string(i) + "\n";
  server.enqueue(text_response(body, Framing::chunked, {1, 3, 7, 1000}));
  testing::ClientThread thread;
  HttpRequest request;
  request.url = server.base_url() + "/v1/messages?beta=true";
  request.headers.add("x-api-key", "test-key");
  request.headers.add("content-type", "application/json");
  request.body = R"({"model":"m","stream":true})";
  const auto response = testing::fetch(thread.client(), request);
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == body);
  CHECK(response.body_callbacks > 1);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].target == "/v1/messages?beta=true");
  CHECK(requests[0].body == request.body);
  CHECK(requests[0].header("x-api-key") == std::optional<std::string>("test-key"));
  CHECK(requests[0].header("content-length") == std::optional<std::string>(std::to_string(request.body.size())));
  CHECK(requests[0].header("host") == std::optional<std::string>("127.0.0.1:" + std::to_string(server.port())));
}

TEST_CASE("http: a close-delimited body ends at EOF") {
  LoopbackServer server;
  server.enqueue(text_response("until the end", Framing::close_delimited, {4}));
  testing::ClientThread thread;
  const auto response = testing::fetch(thread.client(), get(server));
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == "until the end");
}

TEST_CASE("http: keep-alive reuses one connection for sequential requests") {
  LoopbackServer server;
  server.enqueue(text_response("one", Framing::chunked));
  server.enqueue(text_response("two", Framing::content_length));
  server.enqueue(text_response("three", Framing::chunked, {1}));
  testing::ClientThread thread;
  CHECK(testing::fetch(thread.client(), get(server)).body == "one");
  CHECK(testing::fetch(thread.client(), get(server)).body == "two");
  CHECK(testing::fetch(thread.client(), get(server)).body == "three");
  const auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].connection_id == requests[1].connection_id);
  CHECK(requests[1].connection_id == requests[2].connection_id);
  CHECK(server.connections_accepted() == 1);
  CHECK(thread.client().connections_opened() == 1);
}

TEST_CASE("http: a pooled connection the server closed is replaced transparently") {
  LoopbackServer server;
  ScriptedResponse first = text_response("first", Framing::content_length);
  first.close_silently_after = true;
  server.enqueue(first);
  server.enqueue(text_response("second", Framing::content_length));
  testing::ClientThread thread;
  CHECK(testing::fetch(thread.client(), get(server)).body == "first");
  REQUIRE(server.wait_for_closed_connections(1, 10s));
  const auto second = testing::fetch(thread.client(), get(server));
  REQUIRE_FALSE(second.failure.has_value());
  CHECK(second.body == "second");
  CHECK(server.connections_accepted() == 2);
}

TEST_CASE("http: a non-2xx response completes normally; the status is the caller's business") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::overloaded());
  testing::ClientThread thread;
  const auto response = testing::fetch(thread.client(), get(server));
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.head.status == 529);
  CHECK(response.body.find("overloaded_error") != std::string::npos);
}

TEST_CASE("http: the stream idle timeout fires on a stall") {
  LoopbackServer server;
  ScriptedResponse stalled = ScriptedResponse::sse("data: 1\n\ndata: 2\n\n", {9});
  stalled.fault = Fault::stall;
  stalled.fault_after_bytes = 9;
  server.enqueue(stalled);
  testing::ClientThread thread;
  HttpRequest request = get(server);
  request.timeouts = testing::loopback_options().timeouts;
  request.timeouts->stream_idle = 300ms;
  const auto started = Clock::now();
  const auto response = testing::fetch(thread.client(), request);
  const auto elapsed = Clock::now() - started;
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::timeout);
  CHECK(response.failure->message.find("stalled") != std::string::npos);
  CHECK(response.body == "data: 1\n\n");
  CHECK(elapsed >= 300ms);
  CHECK(elapsed < 20s);
  CHECK(server.wait_for_closed_connections(1, 10s));  // we hung up on the stalled server
}

TEST_CASE("http: a steady trickle does not trip the idle timeout") {
  LoopbackServer server;
  ScriptedResponse trickle = ScriptedResponse::sse(std::string(12, 'x'), {1});
  trickle.piece_interval = 50ms;  // 12 pieces, 550 ms in all, never 200 ms apart
  server.enqueue(trickle);
  testing::ClientThread thread;
  HttpRequest request = get(server);
  request.timeouts = testing::loopback_options().timeouts;
  request.timeouts->stream_idle = 200ms;
  const auto response = testing::fetch(thread.client(), request);
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == std::string(12, 'x'));
}

TEST_CASE("http: the read timeout bounds the wait for the response head") {
  LoopbackServer server;
  ScriptedResponse slow = text_response("late", Framing::content_length);
  slow.head_delay = 5s;
  server.enqueue(slow);
  testing::ClientThread thread;
  HttpRequest request = get(server);
  request.timeouts = testing::loopback_options().timeouts;
  request.timeouts->read = 200ms;
  const auto response = testing::fetch(thread.client(), request);
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::timeout);
  CHECK(response.failure->retryable);
}

TEST_CASE("http: the total timeout bounds a stream that keeps flowing") {
  LoopbackServer server;
  ScriptedResponse endless = ScriptedResponse::sse(std::string(200, 'y'), {1});
  endless.piece_interval = 20ms;  // 4 s in all
  server.enqueue(endless);
  testing::ClientThread thread;
  HttpRequest request = get(server);
  request.timeouts = testing::loopback_options().timeouts;
  request.timeouts->total = 300ms;
  const auto started = Clock::now();
  const auto response = testing::fetch(thread.client(), request);
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::timeout);
  CHECK(response.failure->message.find("total timeout") != std::string::npos);
  CHECK(Clock::now() - started < 3s);
}

TEST_CASE("http: connection refused is a network error") {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::address_v4::loopback(), 0});
  const auto port = probe.local_endpoint().port();
  probe.close();  // nothing listens there now
  testing::ClientThread thread;
  HttpRequest request;
  request.method = "GET";
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  const auto response = testing::fetch(thread.client(), request);
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::network);
  CHECK(response.failure->retryable);
}

TEST_CASE("http: a reset mid-stream is a network error, a cut-off body a stream error") {
  for (const Framing framing : {Framing::chunked, Framing::content_length}) {
    CAPTURE(static_cast<int>(framing));
    LoopbackServer server;
    ScriptedResponse reset = text_response(std::string(100, 'r'), framing, {10});
    reset.fault = Fault::reset;
    reset.fault_after_bytes = 30;
    server.enqueue(reset);
    ScriptedResponse cut = text_response(std::string(100, 'c'), framing, {10});
    cut.fault = Fault::close;
    cut.fault_after_bytes = 30;
    server.enqueue(cut);
    testing::ClientThread thread;

    const auto after_reset = testing::fetch(thread.client(), get(server));
    REQUIRE(after_reset.failure.has_value());
    CHECK(after_reset.body.size() <= 30);
    // The RST may overtake the last bytes, so the client sees a reset or (rarely) an EOF.
    CHECK((after_reset.failure->kind == ErrorKind::network || after_reset.failure->kind == ErrorKind::stream));

    const auto after_cut = testing::fetch(thread.client(), get(server));
    REQUIRE(after_cut.failure.has_value());
    CHECK(after_cut.failure->kind == ErrorKind::stream);
    CHECK(after_cut.body == std::string(30, 'c'));
    CHECK(after_cut.failure->retryable);
  }
}

// One connection on a thread of its own: reads the request head, then writes `reply` in one
// write (so the client's first read gets all of it) and closes.
class OneShotServer {
 public:
  explicit OneShotServer(std::string reply)
      : acceptor_(io_, {boost::asio::ip::address_v4::loopback(), 0}),
        thread_([this, reply = std::move(reply)] {
          boost::asio::ip::tcp::socket socket = acceptor_.accept();
          std::string head;
          char c;
          while (head.find("\r\n\r\n") == std::string::npos &&
                 boost::asio::read(socket, boost::asio::buffer(&c, 1)) == 1)
            head += c;
          boost::asio::write(socket, boost::asio::buffer(reply));
          boost::system::error_code ignored;
          socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
        }) {}
  ~OneShotServer() { thread_.join(); }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/";
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
};

std::string chunked_reply(const std::vector<std::string> &chunks, std::string_view tail) {
  std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (const auto &chunk : chunks) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    reply += size + chunk + "\r\n";
  }
  return reply + std::string(tail);
}

// A GET of `url` on a client of its own.
testing::RawResponse fetch_url(const std::string &url) {
  testing::ClientThread thread;
  HttpRequest request;
  request.method = "GET";
  request.url = url;
  return testing::fetch(thread.client(), request);
}

TEST_CASE("http: many chunks that arrive in one read are all delivered, in order, one per chunk") {
  std::vector<std::string> chunks;
  std::string expected;
  for (int i = 0; i < 300; ++i) {
    chunks.push_back("event " + std::to_string(i) + ";");
    expected += chunks.back();
  }
  OneShotServer server(chunked_reply(chunks, "0\r\n\r\n"));
  const auto response = fetch_url(server.url());
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == expected);
  CHECK(response.body_callbacks == chunks.size());
}

TEST_CASE("http: a malformed chunk among buffered ones ends the stream after those before it") {
  OneShotServer server(chunked_reply({"first;", "second;"}, "zz\r\nnot a chunk\r\n0\r\n\r\n"));
  const auto response = fetch_url(server.url());
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::stream);
  CHECK(response.failure->message.find("malformed response body") != std::string::npos);
  CHECK(response.body == "first;second;");
}

TEST_CASE("http: cancelling closes the socket at once and completes with cancelled") {
  LoopbackServer server;
  ScriptedResponse stalled = ScriptedResponse::sse("data: first\n\n");
  stalled.fault = Fault::stall;
  stalled.fault_after_bytes = 13;
  server.enqueue(stalled);
  testing::ClientThread thread;

  auto first_bytes = std::make_shared<std::promise<void>>();
  auto done = std::make_shared<std::promise<std::optional<KernelError>>>();
  auto first_bytes_arrived = first_bytes->get_future();
  auto finished = done->get_future();
  ResponseHandlers handlers;
  handlers.on_body = [first_bytes, signalled = std::make_shared<bool>(false)](std::string_view) {
    if (!std::exchange(*signalled, true)) first_bytes->set_value();
  };
  handlers.on_complete = [done](std::optional<KernelError> failure) { done->set_value(std::move(failure)); };
  const CancelHandle handle = thread.client().start(get(server), std::move(handlers));
  testing::wait_for(first_bytes_arrived);

  const auto cancelled_at = Clock::now();
  handle.cancel();
  const auto failure = testing::wait_for(finished);
  CHECK(Clock::now() - cancelled_at < 2s);
  REQUIRE(failure.has_value());
  CHECK(failure->kind == ErrorKind::cancelled);
  CHECK(server.wait_for_closed_connections(1, 10s));
  handle.cancel();  // after completion: harmless
}

TEST_CASE("http: configuration problems arrive through on_complete") {
  testing::ClientThread thread;
  for (const std::string url : {"ftp://example.com/", "not a url", "http:///nohost"}) {
    CAPTURE(url);
    HttpRequest request;
    request.url = url;
    const auto response = testing::fetch(thread.client(), request);
    REQUIRE(response.failure.has_value());
    CHECK(response.failure->kind == ErrorKind::configuration);
  }
}

TEST_CASE("http: a throwing body handler ends the request with an internal error") {
  LoopbackServer server;
  server.enqueue(text_response("boom", Framing::content_length));
  testing::ClientThread thread;
  auto done = std::make_shared<std::promise<std::optional<KernelError>>>();
  auto finished = done->get_future();
  ResponseHandlers handlers;
  handlers.on_body = [](std::string_view) { throw std::runtime_error("handler bug"); };
  handlers.on_complete = [done](std::optional<KernelError> failure) { done->set_value(std::move(failure)); };
  thread.client().start(get(server), std::move(handlers));
  const auto failure = testing::wait_for(finished);
  REQUIRE(failure.has_value());
  CHECK(failure->kind == ErrorKind::internal);
  CHECK(failure->message.find("handler bug") != std::string::npos);
}

TEST_CASE("http: proxy settings honour NO_PROXY") {
  ProxySettings settings;
  settings.https_proxy = "http://proxy:3128";
  settings.http_proxy = "http://plain-proxy:3128";
  settings.no_proxy = "localhost, .internal.example,10.0.0.1:8080";
  CHECK(settings.proxy_for("https", "api.anthropic.com") == "http://proxy:3128");
  CHECK(settings.proxy_for("http", "api.anthropic.com") == "http://plain-proxy:3128");
  CHECK(settings.proxy_for("https", "localhost").empty());
  CHECK(settings.proxy_for("https", "svc.internal.example").empty());
  CHECK(settings.proxy_for("https", "internal.example").empty());
  CHECK(settings.proxy_for("https", "notinternal.example") == "http://proxy:3128");
  CHECK(settings.proxy_for("https", "10.0.0.1").empty());
  settings.no_proxy = "*";
  CHECK(settings.proxy_for("https", "api.openai.com").empty());
  CHECK(ProxySettings{}.proxy_for("https", "api.openai.com").empty());
}

}  // namespace
}  // namespace amplifier::transport
