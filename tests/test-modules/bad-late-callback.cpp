// bad-late-callback: a provider that finishes each call correctly, then, from its own thread
// after `late_delay_ms` (config, default 50), reports a stream event and a second terminal
// event on the finished call. The host must recognise the stale call id, log the violation
// and ignore both.
#include "test_module_support.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::chrono::milliseconds configured_delay(const amp::sdk::Host &host) {
  auto value = host.config("late_delay_ms");
  return std::chrono::milliseconds(value ? std::stoi(*value) : 50);
}

class LateCallbackProvider final : public amp::sdk::ProviderModule {
 public:
  LateCallbackProvider(amp::sdk::Host host, std::string_view)
      : ProviderModule(host), delay_(configured_delay(this->host())) {}

  // Stops the pending late reports (destroy must not call into the host) and joins.
  ~LateCallbackProvider() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto &t : threads_) t.join();
  }

  std::string info() override { return amp_test::provider_info_json("bad-late-callback"); }

  // Overridden although the default would do: the SDK takes `&M::list_models`, which does

  // not deduce when the function is inherited.

  std::string list_models() override { return "[]"; }

  void complete(amp_call_id call, std::string_view) override {
    host().call_finish(call, AMP_OK, amp_test::text_response_json("finished on time"));
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, call] { report_late(call); });
  }

 private:
  void report_late(amp_call_id call) {
    {
      std::unique_lock lock(mutex_);
      // The delay is the misbehaviour being simulated; the wait ends early only on destroy.
      if (wake_.wait_for(lock, delay_, [this] { return stopping_; })) return;
    }
    host().call_event(call, amp_test::text_delta_event_json("too late"));
    host().call_finish(call, AMP_OK, amp_test::text_response_json("finished too late"));
  }

  const std::chrono::milliseconds delay_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

AMP_DEFINE_MODULE(LateCallbackProvider, "bad-late-callback", "1.0.0",
                  "Test module: a provider that reports on calls after finishing them")
