// The calls of one provider-anthropic instance: the library's one shared I/O thread
// (module_support::BackgroundExecutor) drives every HTTP exchange of every instance (no thread
// per call or per session); a table of the calls in flight serves cancel() and shutdown.
#pragma once
#include "anthropic_config.hpp"
#include "message_call.hpp"

#include "amplifier/module_support/background_executor.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/array.hpp>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace boost::asio {
class io_context;
}

namespace provider_anthropic {

class MessagesClient {
 public:
  MessagesClient(amp::sdk::Host host, std::shared_ptr<const AnthropicConfig> config);
  // Cancels every call still in flight and waits for their terminal (cancelled) events: nothing
  // of this instance reaches the host afterwards.
  ~MessagesClient();

  struct LogGate;
  MessagesClient(const MessagesClient &) = delete;
  MessagesClient &operator=(const MessagesClient &) = delete;

  // Returns at once; the call reports through the host. A request that cannot be sent (invalid
  // JSON, no API key) ends at once with its error.
  void start(amp_call_id call, std::string_view request_json);
  // An immediate cancel aborts the exchange; a graceful one lets the completion finish.
  void cancel(amp_call_id call, amp_cancel_level level);

  // GET /v1/models, every page; blocks the calling thread (never the io thread).
  boost::json::array list_models();

 private:
  void finish_at_once(amp_call_id call, amplifier::KernelError error, amp_status status);
  void forget(amp_call_id call);

  amp::sdk::Host host_;
  std::shared_ptr<const AnthropicConfig> config_;
  std::shared_ptr<amplifier::module_support::BackgroundExecutor> executor_;
  std::shared_ptr<LogGate> log_gate_;
  std::unique_ptr<amplifier::transport::HttpClient> http_;

  std::mutex calls_mutex_;
  std::condition_variable calls_changed_;
  std::unordered_map<amp_call_id, std::shared_ptr<MessageCall>> calls_;
};

}  // namespace provider_anthropic
