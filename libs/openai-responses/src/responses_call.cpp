#include "responses_call.hpp"

#include "responses_endpoint.hpp"
#include "responses_errors.hpp"

#include "amplifier/provider/call_reports.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace openai_responses {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;
using amplifier::provider::StreamSinks;

namespace {

// Not a kernel event: this provider's own, one per automatic continuation.
constexpr std::string_view kProviderContinuation = "provider:continuation";

bool has_tool_calls(const std::vector<amplifier::ContentBlock> &blocks) {
  for (const auto &block : blocks)
    if (amplifier::block_as<amplifier::ToolCallBlock>(block)) return true;
  return false;
}

// The unified finish reason: stop, tool_calls, length or content_filter (a refusal, or a
// response the vendor's filter cut off).
std::string finish_reason(const RoundResult &last, bool tool_calls) {
  if (last.refused) return "content_filter";
  if (last.status == "incomplete") {
    if (last.incomplete_reason == "max_output_tokens") return "length";
    if (!last.incomplete_reason.empty()) return last.incomplete_reason;
    return "incomplete";
  }
  return tool_calls ? "tool_calls" : "stop";
}

}  // namespace

ResponsesCall::ResponsesCall(amp::sdk::Host host, amp_call_id id,
                             std::shared_ptr<const ResponsesConfig> config,
                             amplifier::ChatRequest request)
    : ResponsesCall(host, id, config, std::move(request), map_request(request, *config)) {}

ResponsesCall::ResponsesCall(amp::sdk::Host host, amp_call_id id,
                             std::shared_ptr<const ResponsesConfig> config,
                             amplifier::ChatRequest &&request, MappedRequest mapped)
    : HttpProviderCall(provider::CallIdentity{host, id, config->module_id, mapped.model,
                                              config->debug_level, std::string(config->secret())},
                       provider::WireRequest{responses_url(*config, mapped.api_model),
                                             request_headers(*config, mapped.stream), mapped.stream,
                                             mapped.reasoning}),
      config_(std::move(config)),
      request_(std::move(request)),
      mapped_(std::move(mapped)) {}

void ResponsesCall::start(transport::HttpClient &client, provider::CallTable::DoneFn on_done) {
  client_ = &client;
  begin(client, mapped_.body, "input", {mapped_.repaired_tool_calls, mapped_.dropped_tool_results},
        std::move(on_done), spec());
}

transport::CallSpec ResponsesCall::spec() const {
  return post(json::serialize(mapped_.body), *config_, request_.timeout);
}

ResponsesTranslator &ResponsesCall::new_translator() {
  return fresh_translator(translator_, first_index_);
}

void ResponsesCall::refine_error(KernelError &error, const transport::Headers *) const {
  openai_responses::refine_error(*config_, error);
}

void ResponsesCall::on_head() {
  // Each attempt that got a 2xx starts afresh: a retried attempt never delivered content.
  new_translator();
}

void ResponsesCall::on_event(const transport::SseEvent &event, transport::CallControl &control) {
  // Some proxies end Responses streams the Chat way.
  if (event.data == "[DONE]") return capture_raw_event(event.data);
  if (!translator_) new_translator();
  translate_piece(control, event.data, *translator_,
                  [&](ResponsesTranslator &translator, std::string_view data) {
                    translator.on_sse_event(event.type, data);
                  });
}

RoundResult ResponsesCall::whole_response(const std::string &body) {
  json::error_code ec;
  json::value response = json::parse(body, ec);
  if (ec || !response.is_object())
    throw KernelException(
        KernelError::make(ErrorKind::stream, "the response body is not a JSON object"));
  capture_raw_body(response);
  ResponsesTranslator &translator = translator_ ? *translator_ : new_translator();
  translator.on_response(response.get_object());
  return translator.take_result();
}

void ResponsesCall::on_complete(transport::CallResult result) {
  const int status = result.head.status;
  keep_response_headers(result.head.headers);  // the last response's, an error's included
  if (result.error) {
    KernelError error = std::move(*result.error);
    refine_error(error, &result.head.headers);
    return finish_error(std::move(error), status);
  }
  finish_guarded(status, [&] {
    if (!mapped_.stream) return round_finished(whole_response(result.body), status);
    if (!translator_ || !translator_->finished())
      return finish_error(unfinished_stream("response.completed", result.sse_end.truncated),
                          status);
    round_finished(translator_->take_result(), status);
  });
}

bool ResponsesCall::continues(const RoundResult &round) const {
  return round.status == "incomplete" && round.incomplete_reason == "max_output_tokens" &&
         continuations_ < config_->max_continuations && !round.content.empty() &&
         !has_tool_calls(round.content) && !has_tool_calls(content_);
}

void ResponsesCall::round_finished(RoundResult round, int status) {
  if (round.usage) {
    if (!usage_) usage_ = amplifier::Usage{};
    add_usage(*usage_, *round.usage);
  }
  if (!continues(round)) return finish_with(std::move(round), status);
  // The answer was cut off by max_output_tokens: ask again so the model carries on where it
  // stopped.
  ++continuations_;
  first_index_ = translator_ ? translator_->next_index() : first_index_;
  translator_.reset();
  const std::string response_id = round.response_id;
  for (auto &block : round.content) content_.push_back(std::move(block));
  provider::notify_or_warn(identity().host, kProviderContinuation,
                           json::object{{"provider", config_->module_id},
                                        {"model", mapped_.model},
                                        {"continuation", continuations_},
                                        {"max_continuations", config_->max_continuations},
                                        {"response_id", response_id},
                                        {"reason", round.incomplete_reason}});
  if (config_->store && !response_id.empty())
    continue_from_stored(response_id);
  else
    continue_with_output_so_far();
  start_exchange(*client_, spec());
}

void ResponsesCall::continue_from_stored(const std::string &response_id) {
  // The server holds the conversation and the cut-off response: only the items after that
  // response go (none), never the whole history again, which the server would count twice.
  mapped_.body["previous_response_id"] = response_id;
  mapped_.body["input"] = json::array{};
}

void ResponsesCall::continue_with_output_so_far() {
  // Nothing is stored server-side: the conversation goes again with what the answer said so
  // far (its reasoning items included) as the last assistant turn.
  amplifier::ChatRequest continuation = request_;
  amplifier::Message so_far;
  so_far.role = amplifier::Role::assistant;
  so_far.content = content_;
  continuation.messages.push_back(std::move(so_far));
  mapped_.body = map_request(continuation, *config_).body;
}

void ResponsesCall::finish_with(RoundResult last, int status) {
  amplifier::ChatResponse response;
  response.content = std::move(content_);
  for (auto &block : last.content) response.content.push_back(std::move(block));
  response.tool_calls = amplifier::collect_tool_calls(response.content);
  response.usage = usage_;
  response.finish_reason = finish_reason(last, !response.tool_calls.empty());
  response.degradations = mapped_.degradations;
  json::object metadata{{"provider", config_->module_id},
                        {"model", last.model.empty() ? mapped_.model : last.model},
                        {"response_id", last.response_id},
                        {"status", last.status}};
  if (!last.incomplete_reason.empty()) metadata["incomplete_reason"] = last.incomplete_reason;
  if (continuations_ > 0) metadata["continuations"] = continuations_;
  if (!last.content_filters.is_null()) metadata["content_filters"] = last.content_filters;
  response.metadata = std::move(metadata);
  finish_ok(std::move(response), status);
}

}  // namespace openai_responses
