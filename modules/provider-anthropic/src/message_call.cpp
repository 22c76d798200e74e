#include "message_call.hpp"

#include "error_mapping.hpp"
#include "http_settings.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/provider/call_reports.hpp"
#include "amplifier/provider/wire_log.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace provider_anthropic {

namespace json = boost::json;
namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;
using namespace amplifier::provider;  // llm:* payloads

namespace {

constexpr std::string_view kProviderRetry = "provider:retry";
constexpr std::string_view kLlmRequest = "llm:request";
constexpr std::string_view kLlmResponse = "llm:response";

std::size_t array_size(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_array() ? value->get_array().size() : 0;
}

}  // namespace

MessageCall::MessageCall(amp::sdk::Host host, amp_call_id id,
                         std::shared_ptr<const AnthropicConfig> config, MappedRequest mapped,
                         std::optional<double> request_timeout_seconds)
    : host_(host),
      id_(id),
      config_(std::move(config)),
      mapped_(std::move(mapped)),
      request_timeout_seconds_(request_timeout_seconds),
      url_(messages_url(*config_)),
      request_headers_(anthropic_headers(*config_, mapped_.stream)) {}

void MessageCall::start(transport::HttpClient &client, DoneFn on_done) {
  on_done_ = std::move(on_done);
  report_tool_repairs(host_, kModuleId, mapped_.repaired_tool_calls,
                      mapped_.dropped_tool_results);
  report_request();
  started_at_ = std::chrono::steady_clock::now();

  transport::CallHandlers handlers;
  auto self = shared_from_this();
  handlers.on_head = [self](const transport::ResponseHead &, transport::CallControl &) {
    self->on_head();
  };
  handlers.on_event = [self](const transport::SseEvent &event, transport::CallControl &control) {
    self->on_event(event, control);
  };
  handlers.on_retry = [self](const transport::RetryNotice &notice) { self->on_retry(notice); };
  handlers.on_complete = [self](transport::CallResult result) {
    self->on_complete(std::move(result));
  };
  transport::CancelHandle handle = transport::start_call(client, spec(), std::move(handlers));

  bool cancel_at_once = false;
  {
    std::lock_guard lock(cancel_mutex_);
    handle_ = handle;
    cancel_at_once = cancel_requested_;
  }
  if (cancel_at_once) handle.cancel();
}

void MessageCall::cancel() {
  transport::CancelHandle handle;
  {
    std::lock_guard lock(cancel_mutex_);
    cancel_requested_ = true;
    handle = handle_;
  }
  handle.cancel();  // an empty handle (not started yet) does nothing; start() cancels then
}

transport::CallSpec MessageCall::spec() const {
  transport::CallSpec spec;
  spec.request.method = "POST";
  spec.request.url = url_;
  spec.request.headers = request_headers_;
  spec.request.body = json::serialize(mapped_.body);
  spec.request.timeouts = timeouts_for(*config_, request_timeout_seconds_, mapped_.stream);
  spec.format = mapped_.stream ? transport::BodyFormat::sse : transport::BodyFormat::whole;
  spec.retry = retry_options(*config_);
  spec.errors = anthropic_error_options(mapped_.model);
  return spec;
}

StreamTranslator &MessageCall::new_translator() {
  raw_events_.clear();
  auto sink = [this](const json::object &event) { host_.call_event(id_, json::serialize(event)); };
  auto map_error = [model = mapped_.model](std::string_view payload) {
    return map_stream_failure(payload, anthropic_error_options(model));
  };
  // Deltas cross typed (ABI 1.2; the SDK falls back to JSON events on an older host).
  auto deltas = [this](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
    host_.emit_delta(id_, index, kind, text);
  };
  return translator_.emplace(std::move(sink), std::move(map_error), std::move(deltas));
}

void MessageCall::on_head() {
  // Each attempt that got a 2xx starts afresh: a retried attempt never delivered content.
  new_translator();
}

void MessageCall::on_event(const transport::SseEvent &event, transport::CallControl &control) {
  if (config_->raw) {
    json::error_code ec;
    json::value data = json::parse(event.data, ec);
    raw_events_.push_back(ec ? json::value(json::string(event.data)) : std::move(data));
  }
  if (!translator_) new_translator();
  std::optional<KernelError> failure;
  try {
    translator_->on_sse_event(event.type, event.data);
  } catch (const KernelException &e) {
    failure = e.error();
  }
  // Once a block reached the host, a retry would show the user the same content twice.
  if (translator_->content_started()) control.mark_content_delivered();
  if (failure) {
    if (!failure->provider) failure->provider = std::string(kModuleId);
    if (!failure->model) failure->model = mapped_.model;
    control.fail(std::move(*failure));
  }
}

void MessageCall::on_retry(const transport::RetryNotice &notice) {
  json::object payload = transport::to_json(notice);
  payload["provider"] = kModuleId;
  payload["model"] = mapped_.model;
  emit(kProviderRetry, payload);
}

amplifier::ChatResponse MessageCall::whole_response(const std::string &body) {
  json::error_code ec;
  json::value message = json::parse(body, ec);
  if (ec || !message.is_object())
    throw KernelException(
        KernelError::make(ErrorKind::stream, "the response body is not a JSON object"));
  if (config_->raw) raw_events_ = json::array{message};
  StreamTranslator &translator = translator_ ? *translator_ : new_translator();
  translator.on_message(message.get_object());
  return translator.take_response(kModuleId);
}

void MessageCall::on_complete(transport::CallResult result) {
  const int status = result.head.status;
  response_headers_ = result.head.headers;  // the last response's, an error's included
  if (result.error) {
    KernelError error = std::move(*result.error);
    refine_anthropic_error(error, &result.head.headers);
    return finish_error(std::move(error), status);
  }
  try {
    if (!mapped_.stream) return finish_ok(whole_response(result.body), status);
    if (!translator_ || !translator_->complete()) {
      std::string message = "the stream ended before message_stop";
      if (result.sse_end.truncated) message += " (its last event was cut off)";
      return finish_error(KernelError::make(ErrorKind::stream, std::move(message)), status);
    }
    return finish_ok(translator_->take_response(kModuleId), status);
  } catch (const KernelException &e) {
    return finish_error(e.error(), status);
  } catch (const std::exception &e) {
    return finish_error(KernelError::make(ErrorKind::internal, e.what()), status);
  }
}

void MessageCall::finish_ok(amplifier::ChatResponse response, int status) {
  response.degradations = mapped_.degradations;
  report_response(status, &response, nullptr);
  // Each form of a long answer is let go as soon as the next exists: at most two are alive.
  json::value payload = amplifier::to_json(response);
  response = {};
  std::string text = json::serialize(payload);
  payload = nullptr;
  host_.call_finish(id_, AMP_OK, text);
  if (on_done_) on_done_(id_);
}

void MessageCall::finish_error(KernelError error, int status) {
  if (!error.provider) error.provider = std::string(kModuleId);
  if (!error.model) error.model = mapped_.model;
  report_response(status, nullptr, &error);
  const amp_status code = error.kind == ErrorKind::cancelled ? AMP_CANCELLED : AMP_ERROR;
  host_.call_finish(id_, code, json::serialize(amplifier::to_json(error)));
  if (on_done_) on_done_(id_);
}

void MessageCall::report_request() const {
  if (!host_.has_hook_handlers(kLlmRequest)) return;  // nobody to build the payload for
  const RequestSummary summary{kModuleId,
                               mapped_.model,
                               mapped_.stream,
                               array_size(mapped_.body, "messages"),
                               array_size(mapped_.body, "tools"),
                               mapped_.thinking.enabled};
  emit(kLlmRequest, llm_request_payload(summary, config_->raw, url_, request_headers_, mapped_.body,
                                        config_->api_key));
}

void MessageCall::report_response(int status, const amplifier::ChatResponse *response,
                                  const KernelError *error) const {
  if (!host_.has_hook_handlers(kLlmResponse)) return;
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started_at_);
  const ResponseSummary summary{kModuleId, mapped_.model, status, elapsed, response, error};
  json::value raw_body;
  if (config_->raw)
    raw_body = mapped_.stream ? json::value(raw_events_)
                              : (raw_events_.empty() ? json::value() : raw_events_.front());
  emit(kLlmResponse, llm_response_payload(summary, config_->raw, response_headers_,
                                          std::move(raw_body), config_->api_key));
}

void MessageCall::emit(std::string_view event, const json::object &payload) const {
  notify_or_warn(host_, event, payload);
}

}  // namespace provider_anthropic
