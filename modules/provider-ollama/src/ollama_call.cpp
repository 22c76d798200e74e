#include "ollama_call.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/call_reports.hpp"
#include "amplifier/transport/error_mapping.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace ollama {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;
using amplifier::module_support::count_at;
using amplifier::module_support::string_at;

namespace {

// Not a kernel event: this provider's own, as a model download goes on.
constexpr std::string_view kModelPull = "provider:model_pull";

}  // namespace

OllamaCall::OllamaCall(amp::sdk::Host host, amp_call_id id,
                       std::shared_ptr<const OllamaConfig> config, MappedChat mapped,
                       std::optional<double> request_timeout_seconds)
    : HttpProviderCall(
          provider::CallIdentity{host, id, std::string(kModuleId), mapped.model, config->debug_level,
                                 config->api_key},
          provider::WireRequest{
              config->host + "/api/chat",
              ollama_headers(*config, true,
                             mapped.stream ? "application/x-ndjson" : "application/json"),
              mapped.stream, mapped.thinking, transport::BodyFormat::ndjson}),
      config_(std::move(config)),
      mapped_(std::move(mapped)),
      request_timeout_seconds_(request_timeout_seconds) {}

void OllamaCall::start(transport::HttpClient &client, provider::CallTable::DoneFn on_done) {
  client_ = &client;
  begin(client, mapped_.body, "messages",
        {mapped_.repaired_tool_calls, mapped_.dropped_tool_results}, std::move(on_done),
        chat_spec());
}

transport::CallSpec OllamaCall::chat_spec() const {
  return post(json::serialize(mapped_.body), *config_, request_timeout_seconds_);
}

transport::CallSpec OllamaCall::pull_spec() const {
  transport::CallSpec spec;
  spec.request.method = "POST";
  spec.request.url = config_->host + "/api/pull";
  spec.request.headers = ollama_headers(*config_, true, "application/x-ndjson");
  spec.request.body = json::serialize(json::object{{"model", mapped_.model}, {"stream", true}});
  // A download takes as long as it takes; only silence between progress lines is bounded.
  spec.request.timeouts = provider::timeouts_for(*config_, std::nullopt, true);
  spec.format = transport::BodyFormat::ndjson;
  spec.retry = provider::retry_options(*config_);
  spec.errors = error_options();
  return spec;
}

OllamaTranslator &OllamaCall::new_translator() { return fresh_translator(translator_); }

void OllamaCall::on_head() {
  // Each attempt that got a 2xx starts afresh: a retried attempt never delivered content.
  if (!pulling_) new_translator();
}

void OllamaCall::on_line(std::string_view line, transport::CallControl &control) {
  if (pulling_) return pull_progress(line);
  if (!translator_) new_translator();
  translate_piece(
      control, line, *translator_,
      [](OllamaTranslator &translator, std::string_view data) { translator.on_line(data); });
}

void OllamaCall::pull_progress(std::string_view line) {
  json::error_code ec;
  const json::value parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) return;  // a progress line we cannot read changes nothing
  const json::object &progress = parsed.get_object();
  const std::string status(string_at(progress, "status"));
  const auto total = count_at(progress, "total");
  const auto completed = count_at(progress, "completed");
  const int percent =
      total && completed && *total > 0 ? static_cast<int>(*completed * 100 / *total) : -1;
  // Reported when the stage changes and every 5 percent within it, not per line.
  if (status == pull_status_ && (percent < 0 || percent < pull_percent_ + 5)) return;
  pull_status_ = status;
  pull_percent_ = percent;
  json::object payload{{"provider", kModuleId}, {"model", mapped_.model}, {"status", status}};
  if (total) payload["total"] = *total;
  if (completed) payload["completed"] = *completed;
  provider::notify_or_warn(identity().host, kModelPull, payload);
}

bool OllamaCall::missing_model(const KernelError &error) const {
  return error.kind == ErrorKind::not_found && config_->auto_pull && !pulled_ &&
         !mapped_.model.empty();
}

void OllamaCall::on_complete(transport::CallResult result) {
  const int status = result.head.status;
  keep_response_headers(result.head.headers);  // the last response's, an error's included
  if (pulling_) {
    pulling_ = false;
    if (result.error) {
      KernelError error = std::move(*result.error);
      error.message = "pulling model '" + mapped_.model + "' failed: " + error.message;
      return finish_error(std::move(error), status);
    }
    return start_exchange(*client_, chat_spec());  // the model is there now
  }
  if (result.error) {
    KernelError error = std::move(*result.error);
    if (missing_model(error)) {
      pulled_ = pulling_ = true;
      return start_exchange(*client_, pull_spec());
    }
    if (error.kind == ErrorKind::not_found &&
        error.message.find(mapped_.model) == std::string::npos)
      error.message = "model '" + mapped_.model + "': " + error.message;
    return finish_error(std::move(error), status);
  }
  finish_guarded(status, [&] {
    if (!mapped_.stream) {
      // stream: false: the body is the one done line.
      OllamaTranslator &translator = translator_ ? *translator_ : new_translator();
      capture_raw_event(result.body);
      translator.on_line(result.body);
    }
    if (!translator_ || !translator_->finished())
      return finish_error(unfinished_stream("its done line", false), status);
    amplifier::ChatResponse response = translator_->take_response(kModuleId);
    response.degradations = mapped_.degradations;
    finish_ok(std::move(response), status);
  });
}

}  // namespace ollama
