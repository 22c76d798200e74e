#include "messages_client.hpp"

#include "error_mapping.hpp"
#include "http_settings.hpp"
#include "provider_info.hpp"
#include "request_mapping.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/transport/call.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <future>
#include <vector>

namespace provider_anthropic {

namespace json = boost::json;
namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;

// Whether the instance still exists, for the transport's log lines: the HTTP client may still
// be closing connections on the shared I/O thread after the instance is gone, and its host
// context is gone with it.
struct MessagesClient::LogGate {
  std::mutex mutex;
  bool open = true;
};

namespace {

transport::LogSink host_log(const amp::sdk::Host &host,
                            std::shared_ptr<MessagesClient::LogGate> gate) {
  return [host, gate](transport::LogLevel level, std::string_view message) {
    std::lock_guard lock(gate->mutex);
    if (!gate->open) return;
    switch (level) {
      case transport::LogLevel::debug:
        host.log(AMP_LOG_DEBUG, message);
        break;
      case transport::LogLevel::info:
        host.log(AMP_LOG_INFO, message);
        break;
      case transport::LogLevel::warning:
        host.log(AMP_LOG_WARNING, message);
        break;
      case transport::LogLevel::error:
        host.log(AMP_LOG_ERROR, message);
        break;
    }
  };
}

KernelError missing_api_key() {
  return KernelError::make(
      ErrorKind::authentication,
      "no Anthropic API key: set " + std::string(kApiKeyEnv) + " or the provider's api_key config");
}

}  // namespace

MessagesClient::MessagesClient(amp::sdk::Host host, std::shared_ptr<const AnthropicConfig> config)
    : host_(host),
      config_(std::move(config)),
      // One I/O thread per core; each instance keeps to one of them, so a stream is read,
      // translated and reported on one thread, and sessions spread over the cores.
      executor_(amplifier::module_support::BackgroundExecutor::acquire(0)),
      log_gate_(std::make_shared<LogGate>()) {
  http_ = std::make_unique<transport::HttpClient>(executor_->next_context(),
                                                  client_options(*config_, host_log(host_, log_gate_)));
}

MessagesClient::~MessagesClient() {
  std::vector<std::shared_ptr<MessageCall>> outstanding;
  {
    std::lock_guard lock(calls_mutex_);
    for (auto &entry : calls_) outstanding.push_back(entry.second);
  }
  for (auto &call : outstanding) call->cancel();
  {
    std::unique_lock lock(calls_mutex_);
    calls_changed_.wait(lock, [&] { return calls_.empty(); });
  }
  outstanding.clear();
  {
    std::lock_guard lock(log_gate_->mutex);
    log_gate_->open = false;
  }
  // The client closes its idle connections on the shared I/O thread, later; the last instance
  // of the library to let go of the executor joins its thread (nothing of ours runs after).
  http_.reset();
  executor_.reset();
}

void MessagesClient::finish_at_once(amp_call_id call, KernelError error, amp_status status) {
  error.provider = std::string(kModuleId);
  host_.call_finish(call, status, json::serialize(amplifier::to_json(error)));
}

void MessagesClient::start(amp_call_id call, std::string_view request_json) {
  if (host_.cancel_state(call) >= AMP_CANCEL_IMMEDIATE)
    return finish_at_once(call,
                          KernelError::make(ErrorKind::cancelled, "cancelled before it started"),
                          AMP_CANCELLED);
  amplifier::ChatRequest request;
  try {
    const json::value parsed = amplifier::parse_json(request_json);
    request = amplifier::from_json<amplifier::ChatRequest>(parsed);
  } catch (const amplifier::ModelError &e) {
    return finish_at_once(call, KernelError::make(ErrorKind::invalid_request, e.what()), AMP_ERROR);
  }
  // Checked per call, not at mount: a plan without a key must still mount and list.
  if (config_->api_key.empty()) return finish_at_once(call, missing_api_key(), AMP_ERROR);

  const std::optional<double> timeout = request.timeout;
  auto message_call =
      std::make_shared<MessageCall>(host_, call, config_, map_request(request, *config_), timeout);
  {
    std::lock_guard lock(calls_mutex_);
    calls_[call] = message_call;
  }
  try {
    message_call->start(*http_, [this](amp_call_id id) { forget(id); });
  } catch (...) {
    // Nothing was started (the transport reports its own failures through on_complete), so
    // the SDK's error terminal event is the only one; an entry left behind would block shutdown.
    forget(call);
    throw;
  }
}

void MessagesClient::cancel(amp_call_id call, amp_cancel_level level) {
  // Graceful means "finish the running work": the completion runs to its end.
  if (level < AMP_CANCEL_IMMEDIATE) return;
  std::shared_ptr<MessageCall> target;
  {
    std::lock_guard lock(calls_mutex_);
    auto it = calls_.find(call);
    if (it == calls_.end()) return;  // finished already: its terminal event is out
    target = it->second;
  }
  target->cancel();
}

void MessagesClient::forget(amp_call_id call) {
  std::lock_guard lock(calls_mutex_);
  calls_.erase(call);
  calls_changed_.notify_all();
}

json::array MessagesClient::list_models() {
  if (executor_->running_in_this_thread())
    throw std::logic_error("list_models would block the io thread it waits for");
  if (config_->api_key.empty()) throw amplifier::KernelException(missing_api_key());
  json::array models;
  std::string after_id;
  do {
    transport::CallSpec spec;
    spec.request.method = "GET";
    spec.request.url = models_url(*config_, after_id);
    spec.request.headers = anthropic_headers(*config_, false);
    spec.request.headers.erase("content-type");
    spec.request.timeouts = timeouts_for(*config_, std::nullopt, false);
    spec.format = transport::BodyFormat::whole;
    spec.retry = retry_options(*config_);
    spec.errors = anthropic_error_options("");
    std::promise<transport::CallResult> done;
    transport::CallHandlers handlers;
    handlers.on_complete = [&done](transport::CallResult result) {
      done.set_value(std::move(result));
    };
    transport::start_call(*http_, std::move(spec), std::move(handlers));
    transport::CallResult result = done.get_future().get();
    if (result.error) {
      refine_anthropic_error(*result.error, &result.head.headers);
      throw amplifier::KernelException(std::move(*result.error));
    }
    const json::value page = amplifier::parse_json(result.body);
    if (!page.is_object()) throw std::runtime_error("GET /v1/models did not return a JSON object");
    after_id = append_model_page(page.get_object(), models);
  } while (!after_id.empty());
  return models;
}

}  // namespace provider_anthropic
