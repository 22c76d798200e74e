#include "http_channel.hpp"

#include "amplifier/transport/call.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cctype>
#include <future>
#include <map>

namespace tool_mcp {
namespace {

namespace tp = amplifier::transport;
namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr int kMaxResumptions = 3;
constexpr std::chrono::milliseconds kStreamReopenMin{1000};
constexpr std::chrono::milliseconds kStreamReopenMax{30'000};
constexpr std::chrono::milliseconds kDeleteWait{1000};

std::string describe_failure(const amplifier::KernelError &error) {
  if (error.status_code) return "HTTP " + std::to_string(*error.status_code) + ": " + error.message;
  return std::string(amplifier::to_string(error.kind)) + ": " + error.message;
}

int status_of(const tp::CallResult &result) {
  if (result.error && result.error->status_code) return *result.error->status_code;
  return result.head.status;
}

}  // namespace

struct HttpChannel::Shared : std::enable_shared_from_this<Shared> {
  Shared(tp::HttpClient &client, ServerConfig config, std::size_t max_message_bytes, LogFn log)
      : client(client),
        config(std::move(config)),
        max_message_bytes(max_message_bytes),
        log(std::move(log)) {}

  tp::HttpClient &client;  // used only while not closed: the module closes channels first
  const ServerConfig config;
  const std::size_t max_message_bytes;
  const LogFn log;

  std::mutex delivery;  // held while events are delivered; close() waits for it
  ChannelEvents events;
  bool closed = false;  // guarded by delivery

  std::mutex state;
  std::string session_id, protocol_version, stream_event_id;
  bool session_lost = false;
  bool stopped = false;                            // no new timers once stop_exchanges ran
  std::map<RequestId, tp::CancelHandle> requests;  // the exchanges carrying requests
  tp::CancelHandle stream;                         // the GET stream
  std::shared_ptr<asio::steady_timer> reopen_timer;
  std::chrono::milliseconds reopen_delay = kStreamReopenMin;

  bool is_closed() {
    std::lock_guard lock(delivery);
    return closed;
  }

  template <class Fn>
  void deliver(Fn &&fn) {
    std::lock_guard lock(delivery);
    if (!closed) fn(events);
  }

  void deliver_message(std::string_view text) {
    if (!text.empty()) deliver([&](ChannelEvents &e) { e.on_message(text); });
  }

  tp::CallSpec spec(std::string method) {
    tp::CallSpec spec;
    spec.request.method = std::move(method);
    spec.request.url = config.url;
    for (const auto &[name, value] : config.headers) spec.request.headers.set(name, value);
    {
      std::lock_guard lock(state);
      if (!session_id.empty()) spec.request.headers.set("mcp-session-id", session_id);
      if (!protocol_version.empty())
        spec.request.headers.set("mcp-protocol-version", protocol_version);
    }
    spec.format = tp::BodyFormat::by_content_type;
    spec.retry.max_retries = 0;  // a tool call must not run twice
    spec.max_body_bytes = max_message_bytes;
    spec.max_event_bytes = max_message_bytes;
    // The call's own deadline (rpc_client) bounds the wait; the transport only the connect.
    spec.request.timeouts = tp::Timeouts{10'000ms, 0ms, 0ms, 0ms};
    spec.errors.provider = "mcp server " + config.name;
    return spec;
  }

  void note_session(const tp::ResponseHead &head) {
    auto id = head.headers.find("mcp-session-id");
    if (!id) return;
    std::lock_guard lock(state);
    if (session_id.empty()) session_id = std::string(*id);
  }

  void lose_session(const std::string &reason) {
    {
      std::lock_guard lock(state);
      session_lost = true;
    }
    deliver([&](ChannelEvents &e) { e.on_closed(reason); });
  }

  // 404 is what the spec says a server answers for a session it does not know; some servers
  // (the reference one among them) answer 400 "No valid session ID provided" instead.
  bool session_gone(const tp::CallResult &result) {
    {
      std::lock_guard lock(state);
      if (session_id.empty()) return false;
    }
    const int status = status_of(result);
    if (status == 404) return true;
    if (status != 400 || !result.error) return false;
    std::string message = result.error->message;
    for (char &c : message) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return message.find("session") != std::string::npos;
  }

  void post(std::string body, std::optional<RequestId> id) {
    tp::CallSpec call = spec("POST");
    call.request.headers.set("content-type", "application/json");
    call.request.headers.set("accept", "application/json, text/event-stream");
    call.request.body = std::move(body);
    track(id, start(std::move(call), id, 0));
  }

  // One exchange that may carry the answer to `id`: a POST, or a GET resuming its stream.
  tp::CancelHandle start(tp::CallSpec call, std::optional<RequestId> id, int resumptions) {
    auto self = shared_from_this();
    tp::CallHandlers handlers;
    handlers.on_head = [self](const tp::ResponseHead &head, tp::CallControl &) {
      self->note_session(head);
    };
    handlers.on_event = [self](const tp::SseEvent &event, tp::CallControl &) {
      self->deliver_message(event.data);
    };
    handlers.on_complete = [self, id, resumptions](tp::CallResult result) {
      self->exchange_ended(id, std::move(result), resumptions);
    };
    return tp::start_call(client, std::move(call), std::move(handlers));
  }

  void track(std::optional<RequestId> id, tp::CancelHandle handle) {
    if (!id) return;
    std::lock_guard lock(state);
    requests[*id] = std::move(handle);
  }

  void exchange_ended(std::optional<RequestId> id, tp::CallResult result, int resumptions) {
    if (id) {
      std::lock_guard lock(state);
      requests.erase(*id);
    }
    if (is_closed()) return;
    if (result.error && result.error->kind == amplifier::ErrorKind::cancelled) return;  // abandoned
    if (result.error && session_gone(result))
      return lose_session("the server no longer knows the session (" +
                          describe_failure(*result.error) + ")");
    if (result.error && id && result.event_stream && !result.last_event_id.empty() &&
        resumptions < kMaxResumptions)
      return resume(*id, result.last_event_id, resumptions + 1);
    if (!result.error && !result.event_stream) deliver_message(result.body);
    const std::optional<std::string> failure =
        result.error ? std::optional(describe_failure(*result.error)) : std::nullopt;
    if (id) return deliver([&](ChannelEvents &e) { e.on_request_ended(*id, failure); });
    if (failure) log(AMP_LOG_WARNING, "a notification was not delivered: " + *failure);
  }

  void resume(RequestId id, const std::string &last_event_id, int resumptions) {
    log(AMP_LOG_INFO, "resuming the answer stream of request " + std::to_string(id) +
                          " after event " + last_event_id);
    tp::CallSpec call = spec("GET");
    call.request.headers.set("accept", "text/event-stream");
    call.request.headers.set("last-event-id", last_event_id);
    track(id, start(std::move(call), id, resumptions));
  }

  // The GET stream for server-initiated messages.
  void open_stream() {
    if (is_closed()) return;
    tp::CallSpec call = spec("GET");
    call.request.headers.set("accept", "text/event-stream");
    {
      std::lock_guard lock(state);
      if (!stream_event_id.empty()) call.request.headers.set("last-event-id", stream_event_id);
    }
    auto self = shared_from_this();
    tp::CallHandlers handlers;
    handlers.on_event = [self](const tp::SseEvent &event, tp::CallControl &) {
      {
        std::lock_guard lock(self->state);
        self->stream_event_id.assign(event.id);
        self->reopen_delay = kStreamReopenMin;
      }
      self->deliver_message(event.data);
    };
    handlers.on_complete = [self](tp::CallResult result) { self->stream_ended(std::move(result)); };
    tp::CancelHandle handle = tp::start_call(client, std::move(call), std::move(handlers));
    std::lock_guard lock(state);
    stream = std::move(handle);
  }

  void stream_ended(tp::CallResult result) {
    if (is_closed()) return;
    if (result.error && result.error->kind == amplifier::ErrorKind::cancelled) return;
    const int status = status_of(result);
    if (status == 405) return log(AMP_LOG_DEBUG, "the server offers no GET stream (HTTP 405)");
    if (result.error && session_gone(result))
      return lose_session("the server no longer knows the session (" +
                          describe_failure(*result.error) + ")");
    if (result.error && !result.error->status_code)
      log(AMP_LOG_DEBUG, "the GET stream ended: " + describe_failure(*result.error));
    reopen_stream_later();
  }

  void reopen_stream_later() {
    std::lock_guard lock(state);
    if (stopped) return;
    reopen_timer = std::make_shared<asio::steady_timer>(client.io_context(), reopen_delay);
    reopen_delay = std::min(reopen_delay * 2, kStreamReopenMax);
    reopen_timer->async_wait([self = shared_from_this()](boost::system::error_code error) {
      if (!error) self->open_stream();
    });
  }

  // Stops everything in flight; true when a session is to be ended with DELETE.
  bool stop_exchanges() {
    std::lock_guard lock(state);
    stopped = true;
    for (auto &[id, handle] : requests) handle.cancel();
    requests.clear();
    stream.cancel();
    if (reopen_timer)  // timers are not thread-safe: cancelled on their own thread
      asio::post(client.io_context(), [timer = reopen_timer] { timer->cancel(); });
    return !session_id.empty() && !session_lost;
  }

  void end_session() {
    auto done = std::make_shared<std::promise<void>>();
    tp::CallSpec call = spec("DELETE");
    call.request.timeouts = tp::Timeouts{kDeleteWait, kDeleteWait, kDeleteWait, kDeleteWait};
    tp::CallHandlers handlers;
    handlers.on_complete = [done](tp::CallResult) { done->set_value(); };
    tp::start_call(client, std::move(call), std::move(handlers));
    done->get_future().wait_for(kDeleteWait + 500ms);
  }
};

HttpChannel::HttpChannel(tp::HttpClient &client, ServerConfig config, std::size_t max_message_bytes,
                         LogFn log)
    : shared_(
          std::make_shared<Shared>(client, std::move(config), max_message_bytes, std::move(log))) {}

HttpChannel::~HttpChannel() { close(); }

void HttpChannel::open(ChannelEvents events) {
  std::lock_guard lock(shared_->delivery);
  shared_->events = std::move(events);
}

void HttpChannel::send(std::string message, std::optional<RequestId> id) {
  if (!shared_->is_closed()) shared_->post(std::move(message), id);
}

void HttpChannel::abandon(RequestId id) {
  std::lock_guard lock(shared_->state);
  if (auto it = shared_->requests.find(id); it != shared_->requests.end()) {
    it->second.cancel();
    shared_->requests.erase(it);
  }
}

void HttpChannel::initialized(const std::string &protocol_version) {
  {
    std::lock_guard lock(shared_->state);
    shared_->protocol_version = protocol_version;
  }
  shared_->open_stream();
}

void HttpChannel::close() {
  {
    std::lock_guard lock(shared_->delivery);
    if (shared_->closed) return;
    shared_->closed = true;
  }
  if (shared_->stop_exchanges()) shared_->end_session();
}

std::string HttpChannel::describe() const { return shared_->config.url; }

}  // namespace tool_mcp
