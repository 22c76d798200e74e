// A retrying call on top of HttpClient: one HTTP exchange per attempt, the body decoded as SSE,
// NDJSON or buffered, error responses mapped to kernel errors, retries waited on a timer.
// Everything runs on the client's strand.
#include "amplifier/transport/call.hpp"

#include "amplifier/transport/ndjson_reader.hpp"
#include "client_impl.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace amplifier::transport {

namespace {

namespace asio = boost::asio;

bool is_success(int status) { return status >= 200 && status < 300; }

// The media type of a Content-Type value ("text/event-stream; charset=utf-8"), compared
// case-insensitively.
bool is_event_stream(const Headers &headers) {
  std::string_view type = headers.find("content-type").value_or("");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return iequals(type, "text/event-stream");
}

KernelError too_large(std::string_view what, std::size_t limit) {
  KernelError error = KernelError::make(
      ErrorKind::stream, std::string(what) + " is larger than the limit of " +
                             std::to_string(limit) + " bytes");
  error.retryable = false;
  return error;
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

class RetryingCall final : public Cancellable,
                           public CallControl,
                           public std::enable_shared_from_this<RetryingCall> {
 public:
  RetryingCall(std::shared_ptr<HttpClient::Impl> client, CallSpec spec, CallHandlers handlers)
      : client_(std::move(client)),
        spec_(std::move(spec)),
        handlers_(std::move(handlers)),
        policy_(spec_.retry),
        retry_timer_(client_->strand),
        sse_([this](const SseEvent &event) { on_sse_event(event); }),
        ndjson_([this](std::string_view line) { on_ndjson_line(line); }) {}

  void start() {
    asio::post(client_->strand, [self = shared_from_this()] {
      self->client_->track(self.get(), self->weak_from_this());
      self->start_attempt();
    });
  }

  void cancel() override {
    asio::post(client_->strand, [self = shared_from_this()] { self->cancel_on_strand(); });
  }

  // CallControl
  void mark_content_delivered() override { content_delivered_ = true; }
  bool content_delivered() const override { return content_delivered_; }
  void fail(KernelError error) override {
    if (attempt_failure_) return;  // the first failure of an attempt is the one reported
    attempt_failure_ = std::move(error);
    exchange_.cancel();
  }
  int attempt() const override { return attempt_; }

 private:
  void start_attempt() {
    if (cancelled_ || client_->is_shut_down()) return complete_with(cancellation());
    ++attempt_;
    result_.head = {};
    result_.event_stream = spec_.format == BodyFormat::sse;
    body_.clear();
    pending_event_bytes_ = 0;
    attempt_failure_.reset();
    // What an earlier attempt left in the decoders is irrelevant now.
    sse_.finish();
    ndjson_.reset();
    auto self = shared_from_this();
    ResponseHandlers exchange_handlers{
        [self](const ResponseHead &head) { self->on_head(head); },
        [self](std::string_view bytes) { self->on_body(bytes); },
        [self](std::optional<KernelError> failure) { self->on_exchange_complete(std::move(failure)); }};
    exchange_ = client_->start(spec_.request, std::move(exchange_handlers));
  }

  void on_head(const ResponseHead &head) {
    result_.head = head;
    if (spec_.format == BodyFormat::by_content_type)
      result_.event_stream = is_success(head.status) && is_event_stream(head.headers);
    if (is_success(head.status) && handlers_.on_head) guarded([&] { handlers_.on_head(head, *this); });
  }

  void on_body(std::string_view bytes) {
    if (attempt_failure_ || cancelled_) return;
    if (!is_success(result_.head.status)) {
      const std::size_t room = spec_.max_error_body_bytes - std::min(body_.size(), spec_.max_error_body_bytes);
      body_.append(bytes.substr(0, room));
      return;
    }
    if (result_.event_stream) return feed_event_stream(bytes);
    if (spec_.format == BodyFormat::ndjson) return ndjson_.feed(bytes);
    if (spec_.max_body_bytes && body_.size() + bytes.size() > spec_.max_body_bytes)
      return fail(too_large("the response body", spec_.max_body_bytes));
    body_.append(bytes);
  }

  // Bytes since the last dispatched event count against max_event_bytes, so an event that
  // never ends cannot grow the parser's buffers without bound either.
  void feed_event_stream(std::string_view bytes) {
    pending_event_bytes_ += bytes.size();
    if (spec_.max_event_bytes && pending_event_bytes_ > spec_.max_event_bytes)
      return fail(too_large("an event of the response stream", spec_.max_event_bytes));
    sse_.feed(bytes);
  }

  void on_sse_event(const SseEvent &event) {
    pending_event_bytes_ = 0;
    result_.last_event_id.assign(event.id);
    if (attempt_failure_ || !handlers_.on_event) return;
    guarded([&] { handlers_.on_event(event, *this); });
  }

  void on_ndjson_line(std::string_view line) {
    if (attempt_failure_ || !handlers_.on_line) return;
    guarded([&] { handlers_.on_line(line, *this); });
  }

  // A provider callback that throws fails the call; it is a bug, not a vendor hiccup.
  template <class Callback>
  void guarded(Callback &&callback) {
    try {
      callback();
    } catch (...) {
      KernelError error = KernelError::make(
          ErrorKind::internal, "a provider callback threw: " + exception_text(std::current_exception()));
      error.retryable = false;
      fail(std::move(error));
    }
  }

  void on_exchange_complete(std::optional<KernelError> transport_failure) {
    if (cancelled_) return complete_with(cancellation());
    // A failure the provider declared (fail()) wins over the cancellation it caused.
    std::optional<KernelError> failure = std::exchange(attempt_failure_, std::nullopt);
    if (!failure) failure = attempt_outcome(std::move(transport_failure));
    if (!failure) return complete_with(std::nullopt);
    KernelError error = identify(std::move(*failure));
    const RetryDecision decision = policy_.decide(error, attempt_ - 1, content_delivered_);
    if (!decision.retry) return complete_with(std::move(error));
    if (handlers_.on_retry) {
      try {
        handlers_.on_retry(RetryNotice{attempt_ + 1, decision.delay, error});
      } catch (...) {
        // Observability only: a failing retry hook does not change the call.
      }
    }
    wait_then_retry(decision.delay);
  }

  // The failure of a finished exchange, including what the body decoding left over.
  std::optional<KernelError> attempt_outcome(std::optional<KernelError> transport_failure) {
    if (transport_failure) return transport_failure;
    const ResponseHead &head = result_.head;
    if (!is_success(head.status)) return map_http_error(head.status, head.headers, body_, spec_.errors);
    if (result_.event_stream) result_.sse_end = sse_.finish();
    if (spec_.format == BodyFormat::ndjson) ndjson_.finish();  // the last line may call fail()
    return std::exchange(attempt_failure_, std::nullopt);
  }

  KernelError identify(KernelError error) const {
    if (!error.provider) error.provider = spec_.errors.provider;
    if (!error.model) error.model = spec_.errors.model;
    return error;
  }

  void wait_then_retry(std::chrono::milliseconds delay) {
    waiting_ = true;
    retry_timer_.expires_after(delay);
    retry_timer_.async_wait([self = shared_from_this()](boost::system::error_code) {
      self->waiting_ = false;
      self->start_attempt();  // reports cancellation when the wait was cancelled
    });
  }

  void cancel_on_strand() {
    if (completed_ || cancelled_) return;
    cancelled_ = true;
    if (waiting_)
      retry_timer_.cancel();
    else
      exchange_.cancel();
  }

  KernelError cancellation() const {
    return identify(KernelError::make(ErrorKind::cancelled, "the call was cancelled"));
  }

  void complete_with(std::optional<KernelError> error) {
    if (completed_) return;
    completed_ = true;
    client_->forget(this);
    result_.error = std::move(error);
    result_.attempts = attempt_;
    if (!result_.error && !result_.event_stream && spec_.format != BodyFormat::ndjson)
      result_.body = std::move(body_);
    auto on_complete = std::move(handlers_.on_complete);
    handlers_ = {};
    if (!on_complete) return;
    try {
      on_complete(std::move(result_));
    } catch (...) {
      client_->log(LogLevel::error, "a call completion handler threw: " +
                                        exception_text(std::current_exception()));
    }
  }

  std::shared_ptr<HttpClient::Impl> client_;
  CallSpec spec_;
  CallHandlers handlers_;
  RetryPolicy policy_;
  asio::steady_timer retry_timer_;
  SseParser sse_;
  NdjsonReader ndjson_;
  CancelHandle exchange_;
  CallResult result_;
  std::string body_;  // the buffered body (whole) or the error body of a non-2xx response
  std::optional<KernelError> attempt_failure_;
  std::size_t pending_event_bytes_ = 0;  // body bytes since the last SSE event
  int attempt_ = 0;
  bool content_delivered_ = false;
  bool cancelled_ = false;
  bool waiting_ = false;
  bool completed_ = false;
};

}  // namespace

CancelHandle start_call(HttpClient &client, CallSpec spec, CallHandlers handlers) {
  auto call = std::make_shared<RetryingCall>(client.impl(), std::move(spec), std::move(handlers));
  call->start();
  return CancelHandle(call);
}

}  // namespace amplifier::transport
