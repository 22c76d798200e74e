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
    : HttpProviderCall(CallIdentity{host, id, std::string(kModuleId), mapped.model, config->debug_level,
                                    config->api_key},
                       WireRequest{messages_url(*config), anthropic_headers(*config, mapped.stream),
                                   mapped.stream, mapped.thinking.enabled}),
      config_(std::move(config)),
      mapped_(std::move(mapped)),
      request_timeout_seconds_(request_timeout_seconds) {}

void MessageCall::start(transport::HttpClient &client, DoneFn on_done) {
  begin(client, mapped_.body, "messages",
        {mapped_.repaired_tool_calls, mapped_.dropped_tool_results}, std::move(on_done),
        post(json::serialize(mapped_.body), *config_, request_timeout_seconds_));
}

StreamTranslator &MessageCall::new_translator() { return fresh_translator(translator_); }

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
  finish_guarded(status, [&] {
    if (!mapped_.stream) return finish_with(whole_response(result.body), status);
    if (!translator_ || !translator_->complete())
      return finish_error(unfinished_stream("message_stop", result.sse_end.truncated), status);
    finish_with(translator_->take_response(kModuleId), status);
  });
}

void MessageCall::finish_with(amplifier::ChatResponse response, int status) {
  response.degradations = mapped_.degradations;
  finish_ok(std::move(response), status);
}

}  // namespace provider_anthropic
