#include "chat_call.hpp"

#include "amplifier/provider/call_reports.hpp"
#include "amplifier/provider/wire_log.hpp"
#include "amplifier/transport/error_mapping.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <array>

namespace chat_completions {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;

namespace {

// Fields a server may not know, which the request can do without (recorded as degraded).
constexpr std::array kOptionalFields = {
    std::string_view("stream_options"), std::string_view("response_format"),
    std::string_view("reasoning_effort"), std::string_view("tool_choice")};

}  // namespace

ChatCall::ChatCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const ChatConfig> config,
                   MappedChat mapped, std::optional<double> request_timeout_seconds)
    : HttpProviderCall(
          provider::CallIdentity{host, id, std::string(kModuleId), mapped.model, config->debug_level,
                                 config->api_key},
          provider::WireRequest{
              config->base_url + "/chat/completions",
              chat_headers(*config, true, mapped.stream ? "text/event-stream" : "application/json"),
              mapped.stream, false}),
      config_(std::move(config)),
      mapped_(std::move(mapped)),
      request_timeout_seconds_(request_timeout_seconds) {}

void ChatCall::start(transport::HttpClient &client, provider::CallTable::DoneFn on_done) {
  client_ = &client;
  begin(client, mapped_.body, "messages",
        {mapped_.repaired_tool_calls, mapped_.dropped_tool_results}, std::move(on_done), spec());
}

transport::CallSpec ChatCall::spec() const {
  return post(json::serialize(mapped_.body), *config_, request_timeout_seconds_);
}

ChatTranslator &ChatCall::new_translator() { return fresh_translator(translator_); }

void ChatCall::on_head() {
  // Each attempt that got a 2xx starts afresh: a retried attempt never delivered content.
  new_translator();
}

void ChatCall::on_event(const transport::SseEvent &event, transport::CallControl &control) {
  if (!translator_) new_translator();
  translate_piece(
      control, event.data, *translator_,
      [](ChatTranslator &translator, std::string_view data) { translator.on_sse_data(data); });
}

std::string ChatCall::refused_field(const KernelError &error) const {
  if (error.status_code != 400) return {};
  for (std::string_view field : kOptionalFields)
    if (mapped_.body.contains(field) && error.message.find(field) != std::string::npos)
      return std::string(field);
  return {};
}

amplifier::ChatResponse ChatCall::whole_response(const std::string &body) {
  json::error_code ec;
  json::value completion = json::parse(body, ec);
  if (ec || !completion.is_object())
    throw KernelException(
        KernelError::make(ErrorKind::stream, "the response body is not a JSON object"));
  ChatTranslator &translator = translator_ ? *translator_ : new_translator();
  capture_raw_body(completion);
  translator.on_completion(completion.get_object());
  return translator.take_response(kModuleId);
}

void ChatCall::on_complete(transport::CallResult result) {
  const int status = result.head.status;
  keep_response_headers(result.head.headers);  // the last response's, an error's included
  if (result.error) {
    if (const std::string field = refused_field(*result.error); !field.empty()) {
      // Asked once more without it: its own llm:request, a warning, and the degradation on
      // the answer (provider:degraded, the message's metadata).
      mapped_.body.erase(field);
      // The server's words may quote the request: scrubbed of the key before they are kept.
      json::value said = json::string("the server refused " + field + ": " + result.error->message);
      provider::scrub_secret(said, identity().secret);
      const std::string reason(said.get_string());
      mapped_.degradations.push_back(
          amplifier::Degradation{field, reason, std::string("sent without it"), {}});
      identity().host.warn(std::string(kModuleId) + ": " + reason + "; sent again without it");
      translator_.reset();
      return resend(*client_, mapped_.body, "messages", reason, spec());
    }
    return finish_error(std::move(*result.error), status);
  }
  finish_guarded(status, [&] {
    if (!mapped_.stream) return finish_with(whole_response(result.body), status);
    if (!translator_ || !translator_->finished())
      return finish_error(unfinished_stream("data: [DONE]", result.sse_end.truncated), status);
    finish_with(translator_->take_response(kModuleId), status);
  });
}

void ChatCall::finish_with(amplifier::ChatResponse response, int status) {
  response.degradations = mapped_.degradations;
  finish_ok(std::move(response), status);
}

}  // namespace chat_completions
