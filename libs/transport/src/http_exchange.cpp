// Sending the request and streaming the response of one exchange.
#include "http_exchange.hpp"
#include "text.hpp"

#include "amplifier/transport/error_mapping.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <array>

namespace amplifier::transport::detail {

namespace http = beast::http;

namespace {

constexpr std::size_t kResponseHeaderLimit = 64 * 1024;
// Body bytes handed to on_body per read at most. Small enough that 1,000 concurrent streams
// stay cheap (the buffer lives in each exchange's coroutine frame).
constexpr std::size_t kBodyReadSize = 8 * 1024;
// How much one read(2) may take from the socket. Beast reads only what the connection's buffer
// has room for, and an unreserved buffer has 512 bytes: a fast stream then costs a system call
// per 512 bytes. Reserved capacity costs memory only where reads actually land.
constexpr std::size_t kSocketReadSize = 64 * 1024;

bool is_framing_header(std::string_view name) {
  for (std::string_view managed : {"host", "content-length", "transfer-encoding", "connection"})
    if (iequals(name, managed)) return true;
  return false;
}

std::string exception_text(std::exception_ptr exception) {
  try {
    std::rethrow_exception(exception);
  } catch (const std::exception &error) {
    return error.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace

std::shared_ptr<Exchange> Exchange::create(std::shared_ptr<HttpClient::Impl> client,
                                           HttpRequest request, ResponseHandlers handlers) {
  auto exchange = std::make_shared<Exchange>(std::move(client), std::move(request), std::move(handlers));
  exchange->arm_watchdogs();
  return exchange;
}

Exchange::Exchange(std::shared_ptr<HttpClient::Impl> client, HttpRequest request,
                   ResponseHandlers handlers)
    : client_(std::move(client)),
      request_(std::move(request)),
      handlers_(std::move(handlers)),
      timeouts_(request_.timeouts.value_or(client_->options.timeouts)) {}

void Exchange::arm_watchdogs() {
  std::weak_ptr<Exchange> weak = weak_from_this();
  phase_watchdog_ = std::make_shared<Watchdog>(client_->strand, [weak] {
    if (auto self = weak.lock()) self->abort(self->phase_timeout_);
  });
  total_watchdog_ = std::make_shared<Watchdog>(client_->strand, [weak] {
    if (auto self = weak.lock())
      self->abort(transport_failure(ErrorKind::timeout,
                                    "the request to " + self->peer() + " exceeded its total timeout of " +
                                        milliseconds_text(self->timeouts_.total)));
  });
}

void Exchange::start() {
  // Posted, never dispatched: even when start() is called on the io thread, no callback runs
  // before it returns.
  asio::post(client_->strand, [self = shared_from_this()] {
    asio::co_spawn(self->client_->strand, self->run(), [self](std::exception_ptr exception) {
      if (exception)
        self->complete(transport_failure(ErrorKind::internal,
                                         "HTTP exchange failed: " + exception_text(exception)));
    });
  });
}

void Exchange::cancel() {
  asio::post(client_->strand, [self = shared_from_this()] {
    self->abort(transport_failure(ErrorKind::cancelled, "the request was cancelled"));
  });
}

void Exchange::abort(KernelError reason) {
  if (completed_ || abort_reason_) return;
  abort_reason_ = std::move(reason);
  phase_watchdog_->disarm();
  total_watchdog_->disarm();
  if (connection_) connection_->close();  // the pending operation ends with operation_aborted
}

asio::awaitable<void> Exchange::run() {
  client_->track(this, weak_from_this());
  if (client_->is_shut_down())
    abort(transport_failure(ErrorKind::cancelled, "the HTTP client was shut down"));
  Failure failure = co_await perform();
  if (abort_reason_) failure = abort_reason_;
  complete(std::move(failure));
}

asio::awaitable<Exchange::Failure> Exchange::perform() {
  if (aborted()) co_return aborted();
  if (auto failure = plan_route()) co_return failure;
  build_request_message();
  total_watchdog_->arm(timeouts_.total);
  for (;;) {
    connection_ = client_->pool.acquire(route_.pool_key);
    const bool reused = connection_ != nullptr;
    if (!reused) {
      if (auto failure = co_await open_connection()) co_return failure;
    }
    Outcome outcome;
    if (connection_->is_tls())
      outcome = co_await transfer(connection_->tls(), reused);
    else
      outcome = co_await transfer(connection_->socket(), reused);
    if (aborted()) co_return aborted();
    if (!outcome.stale_connection) co_return outcome.failure;
    // The server had closed the idle connection: the request never reached it, so it is
    // safe to send it again on a fresh connection.
    connection_->close();
    connection_.reset();
  }
}

template <class Stream>
asio::awaitable<Exchange::Outcome> Exchange::transfer(Stream &stream, bool reused) {
  phase_timeout_ = transport_failure(ErrorKind::timeout, "no response from " + peer() + " within " +
                                                             milliseconds_text(timeouts_.read));
  phase_watchdog_->arm(timeouts_.read);
  auto [write_error, written] = co_await http::async_write(stream, message_, use_tuple);
  if (aborted()) co_return Outcome{aborted()};
  if (write_error)
    co_return Outcome{io_failure(Phase::sending, write_error, peer()),
                      reused && is_connection_drop(write_error)};

  parser_.emplace();
  parser_->body_limit(boost::none);  // streams are long; the caller bounds what it keeps
  parser_->header_limit(kResponseHeaderLimit);
  if (message_.method() == http::verb::head) parser_->skip(true);
  connection_->read_buffer().reserve(kSocketReadSize);
  auto [head_error, head_bytes] =
      co_await http::async_read_header(stream, connection_->read_buffer(), *parser_, use_tuple);
  if (aborted()) co_return Outcome{aborted()};
  if (head_error)
    co_return Outcome{io_failure(Phase::awaiting_head, head_error, peer()),
                      reused && !parser_->got_some() && is_connection_drop(head_error)};
  if (!deliver_head()) co_return Outcome{aborted()};
  co_return co_await receive_body(stream);
}

template <class Stream>
asio::awaitable<Exchange::Outcome> Exchange::receive_body(Stream &stream) {
  phase_timeout_ = transport_failure(
      ErrorKind::timeout,
      "the response stream from " + peer() + " stalled: no data for " +
          milliseconds_text(timeouts_.stream_idle));
  phase_watchdog_->arm(timeouts_.stream_idle);
  std::array<char, kBodyReadSize> buffer;
  while (!parser_->is_done()) {
    auto &body = parser_->get().body();
    body.data = buffer.data();
    body.size = buffer.size();
    auto [error, consumed] =
        co_await http::async_read_some(stream, connection_->read_buffer(), *parser_, use_tuple);
    if (aborted()) co_return Outcome{aborted()};
    if (error == http::error::need_buffer) error = {};
    const std::size_t received = buffer.size() - parser_->get().body().size;
    if (received > 0 || consumed > 0) phase_watchdog_->touch();
    if (received > 0 && !deliver_body(std::string_view(buffer.data(), received)))
      co_return Outcome{aborted()};
    if (!error && !deliver_buffered(buffer, error)) co_return Outcome{aborted()};
    if (error) co_return Outcome{io_failure(Phase::reading_body, error, peer())};
  }
  phase_watchdog_->disarm();
  finish_connection(parser_->keep_alive());
  co_return Outcome{};
}

void Exchange::build_request_message() {
  message_.version(11);
  const http::verb verb = http::string_to_verb(request_.method);
  if (verb == http::verb::unknown)
    message_.method_string(request_.method);
  else
    message_.method(verb);
  message_.target(route_.absolute_form() ? route_.target.absolute_url() : route_.target.target);
  for (const auto &[name, value] : request_.headers.fields())
    if (!is_framing_header(name)) message_.insert(name, value);
  message_.set(http::field::host, route_.target.authority);
  if (!request_.headers.contains("user-agent"))
    message_.set(http::field::user_agent, "amplifier-transport/0.1");
  if (route_.absolute_form() && !route_.proxy_authorization.empty())
    message_.set(http::field::proxy_authorization, route_.proxy_authorization);
  message_.body() = std::move(request_.body);
  message_.keep_alive(true);
  message_.prepare_payload();
}

ResponseHead Exchange::make_head() const {
  const auto &response = parser_->get();
  ResponseHead head;
  head.status = static_cast<int>(response.result_int());
  head.reason = std::string(response.reason());
  for (const auto &field : response)
    head.headers.add(std::string(field.name_string()), std::string(field.value()));
  return head;
}

bool Exchange::deliver_head() {
  if (!handlers_.on_head) return true;
  try {
    handlers_.on_head(make_head());
    return true;
  } catch (...) {
    abort(transport_failure(ErrorKind::internal,
                            "the response head handler threw: " + exception_text(std::current_exception())));
    return false;
  }
}

bool Exchange::deliver_body(std::string_view bytes) {
  if (!handlers_.on_body) return true;
  try {
    handlers_.on_body(bytes);
    return true;
  } catch (...) {
    abort(transport_failure(ErrorKind::internal,
                            "the response body handler threw: " + exception_text(std::current_exception())));
    return false;
  }
}

// A read takes what the socket has, often several chunks, but the parser hands back one
// chunk per read_some: the rest would each wait for another trip through the io_context's
// queue, behind every other exchange on this thread. They are parsed and delivered here, from
// the connection's buffer, until it is empty or ends inside a chunk. False when delivering
// aborted the exchange; a malformed body sets `error`.
bool Exchange::deliver_buffered(std::span<char> scratch, beast::error_code &error) {
  beast::flat_buffer &pending = connection_->read_buffer();
  while (!parser_->is_done() && pending.size() > 0) {
    auto &body = parser_->get().body();
    body.data = scratch.data();
    body.size = scratch.size();
    beast::error_code ec;
    const std::size_t used = parser_->put(pending.data(), ec);
    pending.consume(used);
    const std::size_t got = scratch.size() - body.size;
    if (got > 0 && !deliver_body(std::string_view(scratch.data(), got))) return false;
    if (ec == http::error::need_more) return true;  // the rest is still on its way
    if (ec && ec != http::error::need_buffer) {
      error = ec;
      return true;
    }
    if (used == 0 && got == 0) return true;
  }
  return true;
}

void Exchange::finish_connection(bool reusable) {
  // Bytes past the end of this response mean the connection is out of step: never reuse it.
  if (reusable && !aborted() && connection_->read_buffer().size() == 0) {
    connection_->mark_served();
    client_->pool.release(std::move(connection_));
  } else {
    connection_->close();
  }
  connection_.reset();
}

void Exchange::complete(Failure failure) {
  if (completed_) return;
  completed_ = true;
  phase_watchdog_->disarm();
  total_watchdog_->disarm();
  if (connection_) {
    connection_->close();
    connection_.reset();
  }
  client_->forget(this);
  auto on_complete = std::move(handlers_.on_complete);
  handlers_ = {};  // drop whatever the callbacks captured
  if (!on_complete) return;
  try {
    on_complete(std::move(failure));
  } catch (...) {
    client_->log(LogLevel::error, "an HTTP completion handler threw: " +
                                      exception_text(std::current_exception()));
  }
}

std::string Exchange::peer() const {
  return route_.target.authority.empty() ? request_.url : route_.target.authority;
}

}  // namespace amplifier::transport::detail
