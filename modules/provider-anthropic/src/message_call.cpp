#include "message_call.hpp"

#include "error_mapping.hpp"
#include "http_settings.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/provider/call_reports.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace provider_anthropic {

namespace json = boost::json;
namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;
using namespace amplifier::provider;

MessageCall::MessageCall(amp::sdk::Host host, amp_call_id id,
                         std::shared_ptr<const AnthropicConfig> config, MappedRequest mapped,
                         std::optional<double> request_timeout_seconds)
    : HttpProviderCall(CallIdentity{host, id, std::string(kModuleId), mapped.model, config->raw,
                                    config->api_key},
                       WireRequest{messages_url(*config), anthropic_headers(*config, mapped.stream),
                                   mapped.stream, mapped.thinking.enabled}),
      config_(std::move(config)),
      mapped_(std::move(mapped)),
      request_timeout_seconds_(request_timeout_seconds) {}

void MessageCall::start(transport::HttpClient &client, DoneFn on_done) {
  report_tool_repairs(identity().host, kModuleId, mapped_.repaired_tool_calls,
                      mapped_.dropped_tool_results);
  announce(mapped_.body, "messages", std::move(on_done));
  start_exchange(client, spec());
}

transport::CallSpec MessageCall::spec() const {
  transport::CallSpec spec = post(json::serialize(mapped_.body));
  spec.request.timeouts = timeouts_for(*config_, request_timeout_seconds_, mapped_.stream);
  spec.retry = retry_options(*config_);
  spec.errors = error_options();
  return spec;
}

StreamTranslator &MessageCall::new_translator() {
  forget_raw();
  StreamSinks sinks = stream_sinks();
  return translator_.emplace(std::move(sinks.events), std::move(sinks.map_error),
                             std::move(sinks.deltas));
}

transport::ErrorMappingOptions MessageCall::error_options() const {
  return anthropic_error_options(mapped_.model);
}

void MessageCall::refine_error(KernelError &error, const transport::Headers *headers) const {
  refine_anthropic_error(error, headers);
}

void MessageCall::on_head() {
  // Each attempt that got a 2xx starts afresh: a retried attempt never delivered content.
  new_translator();
}

void MessageCall::on_event(const transport::SseEvent &event, transport::CallControl &control) {
  if (!translator_) new_translator();
  translate_piece(control, event.data, *translator_,
                  [&](StreamTranslator &translator, std::string_view data) {
                    translator.on_sse_event(event.type, data);
                  });
}

amplifier::ChatResponse MessageCall::whole_response(const std::string &body) {
  json::error_code ec;
  json::value message = json::parse(body, ec);
  if (ec || !message.is_object())
    throw KernelException(
        KernelError::make(ErrorKind::stream, "the response body is not a JSON object"));
  StreamTranslator &translator = translator_ ? *translator_ : new_translator();
  capture_raw_body(message);
  translator.on_message(message.get_object());
  return translator.take_response(kModuleId);
}

void MessageCall::on_complete(transport::CallResult result) {
  const int status = result.head.status;
  keep_response_headers(result.head.headers);  // the last response's, an error's included
  if (result.error) {
    KernelError error = std::move(*result.error);
    refine_error(error, &result.head.headers);
    return finish_error(std::move(error), status);
  }
  try {
    if (!mapped_.stream) return finish_with(whole_response(result.body), status);
    if (!translator_ || !translator_->complete()) {
      std::string message = "the stream ended before message_stop";
      if (result.sse_end.truncated) message += " (its last event was cut off)";
      return finish_error(KernelError::make(ErrorKind::stream, std::move(message)), status);
    }
    return finish_with(translator_->take_response(kModuleId), status);
  } catch (const KernelException &e) {
    return finish_error(e.error(), status);
  } catch (const std::exception &e) {
    return finish_error(KernelError::make(ErrorKind::internal, e.what()), status);
  }
}

void MessageCall::finish_with(amplifier::ChatResponse response, int status) {
  response.degradations = mapped_.degradations;
  finish_ok(std::move(response), status);
}

}  // namespace provider_anthropic
