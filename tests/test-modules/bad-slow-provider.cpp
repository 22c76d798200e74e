// bad-ignores-cancel / bad-ignores-endpoint: a provider that answers every request with a
// text, 50 ms later, from its own thread. One fault, chosen at build time:
//   AMP_TEST_DROP_CANCELLED  a cancelled call never gets its terminal event;
//   AMP_TEST_BASE_URL        it offers a base_url setting and answers without ever using it,
//                            so it "answers" even when its endpoint is unreachable.
#include "test_module_support.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#ifndef AMP_TEST_MODULE_ID
#error "define AMP_TEST_MODULE_ID"
#endif

namespace {

using Clock = std::chrono::steady_clock;

class SlowProvider final : public amp::sdk::ProviderModule {
 public:
  SlowProvider(amp::sdk::Host host, std::string_view)
      : ProviderModule(host), worker_([this] { answer_due_calls(); }) {}

  ~SlowProvider() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  std::string info() override {
#ifdef AMP_TEST_BASE_URL
    return R"({"id":")" AMP_TEST_MODULE_ID R"(","display_name":"Slow","config_fields":[)"
           R"({"id":"base_url","display_name":"Base URL","field_type":"text"}]})";
#else
    return amp_test::provider_info_json(AMP_TEST_MODULE_ID);
#endif
  }
  // Overridden although the default would do: the SDK takes `&M::list_models`.
  std::string list_models() override { return "[]"; }

  void complete(amp_call_id call, std::string_view) override {
    std::lock_guard lock(mutex_);
    due_[call] = Clock::now() + std::chrono::milliseconds(50);
    wake_.notify_all();
  }

  void cancel(amp_call_id call, amp_cancel_level) override {
#ifdef AMP_TEST_DROP_CANCELLED
    std::lock_guard lock(mutex_);
    due_.erase(call);  // the fault: forgotten, never finished
#else
    (void)call;  // finishes normally: a cancel may race the end
#endif
  }

 private:
  void answer_due_calls() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, std::chrono::milliseconds(5));
      for (auto it = due_.begin(); it != due_.end();) {
        if (it->second > Clock::now()) {
          ++it;
          continue;
        }
        host().call_finish(it->first, AMP_OK, amp_test::text_response_json("slow hello"));
        it = due_.erase(it);
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<amp_call_id, Clock::time_point> due_;
  bool stopping_ = false;
  std::thread worker_;  // last: starts once the rest exists
};

}  // namespace

AMP_DEFINE_MODULE(SlowProvider, AMP_TEST_MODULE_ID, "1.0.0",
                  "Test module: a provider answering 50 ms later, with one fault")
