#include "otlp_exporter.hpp"

#include "amplifier/module_support/background_executor.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier/transport/http_client.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>

namespace hooks_otel {
namespace asio = boost::asio;
namespace tp = amplifier::transport;
namespace ms = amplifier::module_support;

// What one request and the whole queue may hold, roughly (approximate_size): captured
// content can make spans large.
constexpr std::size_t kMaxRequestBytes = 4u << 20;
constexpr std::size_t kMaxQueuedBytes = 64u << 20;

// A span's encoded size, roughly: its strings plus a fixed share for ids, times and keys.
std::size_t approximate_size(const Span &span) {
  std::size_t bytes = 256 + span.name.size() + span.status_message.size();
  for (const auto &a : span.attributes) {
    bytes += 48 + a.key.size();
    if (const auto *text = std::get_if<std::string>(&a.value)) bytes += text->size();
    if (const auto *list = std::get_if<std::vector<std::string>>(&a.value))
      for (const auto &item : *list) bytes += 24 + item.size();
  }
  return bytes;
}

constexpr std::string_view kScopeName = "amplifier.hooks-otel";
constexpr std::string_view kScopeVersion = "0.1.0";

// Shared with the I/O thread's handlers, which may still run after the exporter is gone.
struct OtlpExporter::State : std::enable_shared_from_this<State> {
  ExportOptions options;
  std::function<void(const std::string &)> warn;
  std::shared_ptr<ms::BackgroundExecutor> executor;
  std::unique_ptr<tp::HttpClient> client;
  std::optional<asio::steady_timer> timer;

  std::mutex mutex;
  std::condition_variable settled;  // the queue emptied or a request ended
  std::vector<Span> queue;
  std::size_t queued_bytes = 0;  // approximate_size of the queue
  bool in_flight = false;
  bool send_posted = false;
  bool stopping = false;
  bool failing = false;        // warned; quiet until a request succeeds
  bool overflow_warned = false;
  std::optional<tp::CancelHandle> request;

  // On the I/O thread: one request with up to max_batch spans, if none is in flight.
  void send() {
    std::vector<Span> batch;
    bool last_chance = false;
    {
      std::lock_guard lock(mutex);
      send_posted = false;
      if (in_flight || queue.empty() || !client) return;
      // Up to max_batch spans and about kMaxRequestBytes: a collector refuses a body over its
      // limit (the OpenTelemetry Collector's default is 20 MiB) whole.
      std::size_t n = 0, bytes = 0;
      while (n < queue.size() && n < options.max_batch &&
             (n == 0 || bytes + approximate_size(queue[n]) <= kMaxRequestBytes))
        bytes += approximate_size(queue[n++]);
      batch.assign(std::make_move_iterator(queue.begin()), std::make_move_iterator(queue.begin() + n));
      queue.erase(queue.begin(), queue.begin() + n);
      queued_bytes -= std::min(queued_bytes, bytes);
      in_flight = true;
      last_chance = stopping;
    }
    tp::CallSpec spec;
    spec.request.method = "POST";
    spec.request.url = options.endpoint;
    spec.request.headers.add("content-type", "application/json");
    for (const auto &[name, value] : options.headers) spec.request.headers.add(name, value);
    spec.request.body = export_request_json(batch, options.resource, kScopeName, kScopeVersion);
    spec.request.timeouts = tp::Timeouts{};
    spec.request.timeouts->connect = options.export_timeout;
    spec.request.timeouts->read = options.export_timeout;
    spec.request.timeouts->total = options.export_timeout;
    spec.format = tp::BodyFormat::whole;
    // One retry for a blip, none while the session ends: a collector that is down is not
    // waited on.
    spec.retry.max_retries = last_chance ? 0 : 1;
    spec.errors.provider = "otlp";
    spec.max_body_bytes = 1 << 20;
    tp::CallHandlers handlers;
    handlers.on_complete = [self = shared_from_this(), count = batch.size()](tp::CallResult result) {
      self->finished(result, count);
    };
    auto handle = tp::start_call(*client, std::move(spec), std::move(handlers));
    std::lock_guard lock(mutex);
    request = std::move(handle);
  }

  void finished(const tp::CallResult &result, std::size_t count) {
    std::string warning;
    {
      std::lock_guard lock(mutex);
      in_flight = false;
      request.reset();
      if (result.error) {
        // A request the destructor cancelled is no news; any other failure is, once.
        if (!failing && result.error->kind != amplifier::ErrorKind::cancelled)
          warning = "hooks-otel: could not export " + std::to_string(count) + " span(s) to " +
                    options.endpoint + ": " + result.error->message +
                    "; spans are dropped until the collector answers";
        failing = true;
      } else {
        failing = false;
      }
      if (queue.size() >= options.max_batch || (stopping && !queue.empty())) post_send_locked();
    }
    settled.notify_all();
    if (!warning.empty()) warn(warning);
  }

  void post_send_locked() {
    if (send_posted || !client) return;
    send_posted = true;
    asio::post(executor->context(), [self = shared_from_this()] { self->send(); });
  }

  void arm_timer() {
    timer->expires_after(options.schedule_delay);
    timer->async_wait([weak = weak_from_this()](const boost::system::error_code &ec) {
      auto self = weak.lock();
      if (!self || ec) return;
      {
        std::lock_guard lock(self->mutex);
        if (self->stopping) return;
      }
      self->send();
      self->arm_timer();
    });
  }
};

OtlpExporter::OtlpExporter(ExportOptions options, std::function<void(const std::string &)> warn)
    : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
  state_->warn = std::move(warn);
  state_->executor = ms::BackgroundExecutor::acquire(1);
  tp::HttpClientOptions client_options;
  state_->client = std::make_unique<tp::HttpClient>(state_->executor->context(), client_options);
  state_->timer.emplace(state_->executor->context());
  asio::post(state_->executor->context(), [self = state_] { self->arm_timer(); });
}

void OtlpExporter::add(Span span) {
  State &s = *state_;
  std::string warning;
  {
    std::lock_guard lock(s.mutex);
    const std::size_t bytes = approximate_size(span);
    if (s.queue.size() >= s.options.max_queue || s.queued_bytes + bytes > kMaxQueuedBytes) {
      if (!s.overflow_warned)
        warning = "hooks-otel: " + std::to_string(s.queue.size()) +
                  " spans are waiting for the collector (max_queue " +
                  std::to_string(s.options.max_queue) + ", at most " +
                  std::to_string(kMaxQueuedBytes >> 20) + " MiB); newer ones are dropped";
      s.overflow_warned = true;
    } else {
      s.queue.push_back(std::move(span));
      s.queued_bytes += bytes;
      if (s.queue.size() >= s.options.max_batch) s.post_send_locked();
    }
  }
  if (!warning.empty()) s.warn(warning);
}

OtlpExporter::~OtlpExporter() {
  State &s = *state_;
  {
    // What is queued goes out now, batch after batch, for at most shutdown_timeout.
    std::unique_lock lock(s.mutex);
    s.stopping = true;
    if (s.failing) {
      // The collector did not answer the last time: the session ends now, not after a wait
      // for a request that is most likely to fail as well.
      s.queue.clear();
      s.queued_bytes = 0;
    } else if (!s.in_flight) {
      s.post_send_locked();
    }
    s.settled.wait_for(lock, s.options.shutdown_timeout,
                       [&] { return s.queue.empty() && !s.in_flight; });
    if (s.request) s.request->cancel();
  }
  // The timer belongs to the I/O thread: cancelled there, then the client is let go here
  // (completions still due run on the I/O thread and hold the state, not this object).
  std::promise<void> timer_cancelled;
  asio::post(s.executor->context(), [&] {
    s.timer.reset();  // cancelled and destroyed here, while its io_context certainly lives
    timer_cancelled.set_value();
  });
  timer_cancelled.get_future().wait();
  std::unique_ptr<tp::HttpClient> client;
  {
    std::lock_guard lock(s.mutex);
    client = std::move(s.client);
  }
  client.reset();
  auto executor = std::move(s.executor);  // joined when the last instance lets go
}

}  // namespace hooks_otel
