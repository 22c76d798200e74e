// The calls in flight of one provider instance and the HTTP client they share. The library's
// shared I/O threads (module_support::BackgroundExecutor) drive every exchange of every
// instance: no thread per call or per session. The table serves cancel() and shutdown: its
// destructor cancels what still runs and waits for each call's terminal event, so nothing of
// the instance reaches the host afterwards.
//
// THREADS: every member is thread-safe. run_blocking() must not be called on an I/O thread
// (it waits for one).
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/module_support/background_executor.hpp"
#include "amplifier/provider/request_reader.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier_sdk.hpp"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace amplifier::provider {

// One completion a provider started: all the table needs of it is a way to abort it.
class ProviderCall {
 public:
  virtual ~ProviderCall() = default;
  // Aborts at once; the call then ends with a `cancelled` terminal event. Any thread.
  virtual void cancel() = 0;
};

class CallTable {
 public:
  // Runs on the I/O thread right after a call's terminal event went out.
  using DoneFn = std::function<void(amp_call_id)>;

  // `options.log` is replaced by the host's log, closed when the table goes.
  CallTable(amp::sdk::Host host, std::string provider_id,
            transport::HttpClientOptions options);
  ~CallTable();
  CallTable(const CallTable &) = delete;
  CallTable &operator=(const CallTable &) = delete;

  transport::HttpClient &http() { return *http_; }

  // True (and the call ended `cancelled`) when the host cancelled the call before it started.
  bool cancelled_before_start(amp_call_id call);
  // Ends a call that never started with `error` (its provider filled in).
  void finish_at_once(amp_call_id call, KernelError error, amp_status status);

  // Registers `call`, then runs `start(done)`, where `done` forgets the call. A throwing
  // start forgets it too (nothing was started) and rethrows.
  void start(amp_call_id id, std::shared_ptr<ProviderCall> call,
             const std::function<void(DoneFn done)> &start);
  // The request of a call about to start, or none when the call has already ended: cancelled
  // before it started, or its request is not a ChatRequest (ended `invalid_request`). Lent for
  // the caller's scope: the messages the previous request had too are not parsed again, nor
  // copied (RequestReader).
  LentRequest accept_request(amp_call_id call, std::string_view request_json);
  // Registers an HttpProviderCall-like `call` and starts it on the shared client.
  template <class Call>
  void start_http(amp_call_id id, const std::shared_ptr<Call> &call) {
    start(id, call, [&](DoneFn done) { call->start(http(), std::move(done)); });
  }

  // An immediate cancel aborts the exchange; a graceful one lets the completion finish.
  void cancel(amp_call_id call, amp_cancel_level level);

  // One exchange, waited for on the calling thread (list_models). Throws std::logic_error on
  // an I/O thread.
  transport::CallResult run_blocking(transport::CallSpec spec);

  struct LogGate;

 private:
  void forget(amp_call_id call);

  amp::sdk::Host host_;
  std::string provider_id_;
  std::shared_ptr<module_support::BackgroundExecutor> executor_;
  std::shared_ptr<LogGate> log_gate_;
  std::unique_ptr<transport::HttpClient> http_;
  RequestReader requests_;

  std::mutex calls_mutex_;
  std::condition_variable calls_changed_;
  std::unordered_map<amp_call_id, std::shared_ptr<ProviderCall>> calls_;
};

}  // namespace amplifier::provider
