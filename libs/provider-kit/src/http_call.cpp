#include "amplifier/provider/http_call.hpp"

#include "amplifier/json_text.hpp"

#include "amplifier/provider/call_reports.hpp"
#include "amplifier/provider/wire_log.hpp"
#include "amplifier/transport/error_mapping.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::provider {

namespace json = boost::json;

namespace {

constexpr std::string_view kProviderRetry = "provider:retry";
constexpr std::string_view kLlmRequest = "llm:request";
constexpr std::string_view kLlmResponse = "llm:response";
// The debug levels' events (DebugLevel): the payloads cut, and complete.
constexpr std::string_view kLlmRequestDebug = "llm:request:debug";
constexpr std::string_view kLlmRequestRaw = "llm:request:raw";
constexpr std::string_view kLlmResponseDebug = "llm:response:debug";
constexpr std::string_view kLlmResponseRaw = "llm:response:raw";
// What a call could not do as asked, reported as it ends: {provider, model, degradations}.
constexpr std::string_view kProviderDegraded = "provider:degraded";

std::size_t array_size(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_array() ? value->get_array().size() : 0;
}

}  // namespace

HttpProviderCall::HttpProviderCall(CallIdentity identity, WireRequest wire)
    : identity_(std::move(identity)), wire_(std::move(wire)) {}

void HttpProviderCall::report_request(const json::object &body, std::string_view items_key,
                                      const json::object *resent) const {
  const RequestSummary summary{
      identity_.provider,          identity_.model,           wire_.stream,
      array_size(body, items_key), array_size(body, "tools"), wire_.reasoning};
  const auto report = [&](std::string_view event, const json::object *wire_body) {
    if (!identity_.host.has_hook_handlers(event)) return;  // nobody to build the payload for
    json::object payload = llm_request_payload(summary, wire_body != nullptr, wire_.url,
                                               wire_.headers, wire_body ? *wire_body : body,
                                               identity_.secret);
    if (resent) payload["resent"] = *resent;
    notify_or_warn(identity_.host, event, payload);
  };
  report(kLlmRequest, nullptr);
  if (identity_.debug_level == DebugLevel::summary) return;
  if (identity_.host.has_hook_handlers(kLlmRequestDebug)) {
    // Scrubbed before it is cut: a cut through the key would leave its first part behind.
    json::value scrubbed = body;
    scrub_secret(scrubbed, identity_.secret);
    const json::object cut = cut_for_debug(scrubbed).as_object();
    report(kLlmRequestDebug, &cut);
  }
  if (identity_.debug_level == DebugLevel::raw) report(kLlmRequestRaw, &body);
}

void HttpProviderCall::announce(const json::object &body, std::string_view items_key,
                                CallTable::DoneFn on_done) {
  on_done_ = std::move(on_done);
  report_request(body, items_key, nullptr);
  started_at_ = std::chrono::steady_clock::now();
}

void HttpProviderCall::resend(transport::HttpClient &client, const json::object &body,
                              std::string_view items_key, std::string_view reason,
                              transport::CallSpec spec) {
  const json::object resent{{"reason", reason}};
  report_request(body, items_key, &resent);
  start_exchange(client, std::move(spec));
}

transport::CallSpec HttpProviderCall::post(std::string body) const {
  transport::CallSpec spec;
  spec.request.method = "POST";
  spec.request.url = wire_.url;
  spec.request.headers = wire_.headers;
  spec.request.body = std::move(body);
  spec.format = wire_.stream ? wire_.stream_format : transport::BodyFormat::whole;
  return spec;
}

transport::CallSpec HttpProviderCall::post(std::string body, const HttpConfig &config,
                                           std::optional<double> request_timeout) const {
  transport::CallSpec spec = post(std::move(body));
  spec.request.timeouts = timeouts_for(config, request_timeout, wire_.stream);
  spec.retry = retry_options(config);
  spec.errors = error_options();
  return spec;
}

void HttpProviderCall::begin(transport::HttpClient &client, const json::object &body,
                             std::string_view items_key, Repairs repairs, CallTable::DoneFn on_done,
                             transport::CallSpec first) {
  report_tool_repairs(identity_.host, identity_.provider, repairs.repaired_tool_calls,
                      repairs.dropped_tool_results);
  announce(body, items_key, std::move(on_done));
  start_exchange(client, std::move(first));
}

amplifier::KernelError HttpProviderCall::unfinished_stream(std::string_view end_marker,
                                                           bool truncated) {
  std::string message = "the stream ended before " + std::string(end_marker);
  if (truncated) message += " (its last event was cut off)";
  return amplifier::KernelError::make(amplifier::ErrorKind::stream, std::move(message));
}

void HttpProviderCall::start_exchange(transport::HttpClient &client, transport::CallSpec spec) {
  transport::CallHandlers handlers;
  // Each handler keeps the call alive until the exchange has ended.
  auto self = shared_from_this();
  handlers.on_head = [self](const transport::ResponseHead &, transport::CallControl &) {
    self->on_head();
  };
  handlers.on_event = [self](const transport::SseEvent &event, transport::CallControl &control) {
    self->on_event(event, control);
  };
  handlers.on_line = [self](std::string_view line, transport::CallControl &control) {
    self->on_line(line, control);
  };
  handlers.on_retry = [self](const transport::RetryNotice &notice) { self->report_retry(notice); };
  handlers.on_complete = [self](transport::CallResult result) {
    self->on_complete(std::move(result));
  };
  transport::CancelHandle handle =
      transport::start_call(client, std::move(spec), std::move(handlers));
  bool cancel_at_once = false;
  {
    std::lock_guard lock(cancel_mutex_);
    handle_ = handle;
    cancel_at_once = cancel_requested_;
  }
  if (cancel_at_once) handle.cancel();
}

void HttpProviderCall::cancel() {
  transport::CancelHandle handle;
  {
    std::lock_guard lock(cancel_mutex_);
    cancel_requested_ = true;
    handle = handle_;
  }
  handle.cancel();  // an empty handle (not started yet) does nothing; start_exchange cancels
}

transport::ErrorMappingOptions HttpProviderCall::error_options() const {
  transport::ErrorMappingOptions options;
  options.provider = identity_.provider;
  options.model = identity_.model;
  return options;
}

StreamSinks HttpProviderCall::stream_sinks() const {
  const amp::sdk::Host host = identity_.host;
  const amp_call_id id = identity_.id;
  StreamSinks sinks;
  sinks.events = EventSink::of_text([host, id](std::string_view event_json) {
    host.call_event(id, event_json);
  });
  sinks.deltas = [host, id](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
    host.emit_delta(id, index, kind, text);
  };
  // The call owns its translator, so it outlives every use of the mapper.
  sinks.map_error = [this](std::string_view payload) {
    amplifier::KernelError error = transport::map_stream_error(payload, error_options());
    refine_error(error, nullptr);
    return error;
  };
  return sinks;
}

void HttpProviderCall::fail_exchange(transport::CallControl &control,
                                     amplifier::KernelError error) const {
  if (!error.provider) error.provider = identity_.provider;
  if (!error.model) error.model = identity_.model;
  control.fail(std::move(error));
}

void HttpProviderCall::capture_raw_event(std::string_view data) {
  if (identity_.debug_level == DebugLevel::summary) return;
  json::error_code ec;
  json::value parsed = json::parse(data, ec);
  raw_events_.push_back(ec ? json::value(json::string(data)) : std::move(parsed));
}

void HttpProviderCall::capture_raw_body(const json::value &body) {
  if (identity_.debug_level != DebugLevel::summary) raw_events_.push_back(body);
}

void HttpProviderCall::report_retry(const transport::RetryNotice &notice) const {
  json::object payload = transport::to_json(notice);
  payload["provider"] = identity_.provider;
  payload["model"] = identity_.model;
  notify_or_warn(identity_.host, kProviderRetry, payload);
}

void HttpProviderCall::finish_ok(amplifier::ChatResponse response, int status) {
  report_response(status, &response, nullptr);
  // Never silent: what the call could not do as asked is an event (and rides on the response,
  // which the orchestrator keeps in the message's metadata).
  if (!response.degradations.empty() && identity_.host.has_hook_handlers(kProviderDegraded)) {
    json::value list = json::array{};
    for (const auto &degradation : response.degradations)
      list.get_array().push_back(amplifier::to_json(degradation));
    scrub_secret(list, identity_.secret);  // a reason may quote the server's error
    notify_or_warn(identity_.host, kProviderDegraded,
                   json::object{{"provider", identity_.provider},
                                {"model", identity_.model},
                                {"degradations", std::move(list)}});
  }
  // Written straight to text, each long string once; the response is let go before the call
  // ends, so at most two forms of a long answer are alive.
  std::string text = amplifier::to_json_text(response);
  response = {};
  identity_.host.call_finish(identity_.id, AMP_OK, text);
  if (on_done_) on_done_(identity_.id);
}

void HttpProviderCall::finish_error(amplifier::KernelError error, int status) {
  if (!error.provider) error.provider = identity_.provider;
  if (!error.model) error.model = identity_.model;
  report_response(status, nullptr, &error);
  const amp_status code = error.kind == amplifier::ErrorKind::cancelled ? AMP_CANCELLED : AMP_ERROR;
  identity_.host.call_finish(identity_.id, code, json::serialize(amplifier::to_json(error)));
  if (on_done_) on_done_(identity_.id);
}

void HttpProviderCall::report_response(int status, const amplifier::ChatResponse *response,
                                       const amplifier::KernelError *error) {
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started_at_);
  const ResponseSummary summary{
      identity_.provider, identity_.model, status, elapsed, response, error};
  if (identity_.host.has_hook_handlers(kLlmResponse))
    notify_or_warn(identity_.host, kLlmResponse,
                   llm_response_payload(summary, false, response_headers_, nullptr,
                                        identity_.secret));
  if (identity_.debug_level == DebugLevel::summary) return;
  const bool debug = identity_.host.has_hook_handlers(kLlmResponseDebug);
  const bool raw =
      identity_.debug_level == DebugLevel::raw && identity_.host.has_hook_handlers(kLlmResponseRaw);
  if (!debug && !raw) return;
  // The response body: a non-streamed call's one body, else the stream's events in order.
  json::value body;
  if (wire_.stream || raw_events_.size() > 1)
    body = raw_events_;
  else if (!raw_events_.empty())
    body = raw_events_.front();
  if (debug) {
    json::value scrubbed = body;  // before it is cut, as for the request
    scrub_secret(scrubbed, identity_.secret);
    notify_or_warn(identity_.host, kLlmResponseDebug,
                   llm_response_payload(summary, true, response_headers_, cut_for_debug(scrubbed),
                                        identity_.secret));
  }
  if (raw)
    notify_or_warn(identity_.host, kLlmResponseRaw,
                   llm_response_payload(summary, true, response_headers_, std::move(body),
                                        identity_.secret));
}

}  // namespace amplifier::provider
