#include "gemini_call.hpp"

#include "amplifier/provider/call_reports.hpp"
#include "amplifier/transport/error_mapping.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace gemini {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;

namespace {

void redact(std::string &text, const std::string &secret) {
  if (secret.empty()) return;
  for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at))
    text.replace(at, secret.size(), "[REDACTED]");
}

}  // namespace

std::string generate_url(const GeminiConfig &config, std::string_view model, bool stream) {
  // "models/gemini-2.5-flash", as list_models' API names it, is the same model.
  if (model.starts_with("models/")) model.remove_prefix(7);
  return config.base_url + "/v1beta/models/" +
         boost::urls::encode(model, boost::urls::unreserved_chars) +
         (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
}

void refine_error(const GeminiConfig &config, KernelError &error) {
  // The API says INVALID_ARGUMENT; the ErrorInfo reason the transport keeps says what.
  const boost::json::value *reason = error.extra.if_contains("vendor_code");
  if (reason && reason->is_string() && reason->get_string() == "API_KEY_INVALID") {
    error.kind = ErrorKind::authentication;
    error.retryable = false;
  }
  redact(error.message, config.api_key);
}

GeminiCall::GeminiCall(amp::sdk::Host host, amp_call_id id,
                       std::shared_ptr<const GeminiConfig> config, MappedRequest mapped,
                       std::optional<double> request_timeout_seconds)
    : HttpProviderCall(provider::CallIdentity{host, id, std::string(kModuleId), mapped.model,
                                              config->debug_level, config->api_key},
                       provider::WireRequest{
                           generate_url(*config, mapped.model, mapped.stream),
                           gemini_headers(*config, true,
                                          mapped.stream ? "text/event-stream" : "application/json"),
                           mapped.stream, mapped.thinking}),
      config_(std::move(config)),
      mapped_(std::move(mapped)),
      request_timeout_seconds_(request_timeout_seconds) {}

void GeminiCall::start(transport::HttpClient &client, provider::CallTable::DoneFn on_done) {
  begin(client, mapped_.body, "contents",
        {mapped_.repaired_tool_calls, mapped_.dropped_tool_results}, std::move(on_done),
        post(json::serialize(mapped_.body), *config_, request_timeout_seconds_));
}

GeminiTranslator &GeminiCall::new_translator() { return fresh_translator(translator_); }

void GeminiCall::on_head() {
  // Each attempt that got a 2xx starts afresh: a retried attempt never delivered content.
  new_translator();
}

void GeminiCall::on_event(const transport::SseEvent &event, transport::CallControl &control) {
  if (!translator_) new_translator();
  translate_piece(
      control, event.data, *translator_,
      [](GeminiTranslator &translator, std::string_view data) { translator.on_sse_data(data); });
}

void GeminiCall::refine_error(KernelError &error, const transport::Headers *) const {
  gemini::refine_error(*config_, error);
}

void GeminiCall::on_complete(transport::CallResult result) {
  const int status = result.head.status;
  keep_response_headers(result.head.headers);  // the last response's, an error's included
  if (result.error) {
    KernelError error = std::move(*result.error);
    refine_error(error, &result.head.headers);
    return finish_error(std::move(error), status);
  }
  finish_guarded(status, [&] {
    if (!mapped_.stream) {
      GeminiTranslator &translator = translator_ ? *translator_ : new_translator();
      capture_raw_event(result.body);
      translator.on_sse_data(result.body);
    }
    // A last event whose blank line never came (recorded Gemini streams end so) still counts.
    if (mapped_.stream && translator_ && !translator_->finished() &&
        result.sse_end.unterminated_data)
      translator_->on_sse_data(*result.sse_end.unterminated_data);
    if (!translator_ || !translator_->finished())
      return finish_error(unfinished_stream("a finishReason", false), status);
    amplifier::ChatResponse response = translator_->take_response(kModuleId);
    response.degradations = mapped_.degradations;
    finish_ok(std::move(response), status);
  });
}

}  // namespace gemini
