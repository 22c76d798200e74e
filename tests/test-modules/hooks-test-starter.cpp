// hooks-test-starter: a hook that, on prompt:submit, starts a completion on the provider named
// by `provider` (config) and does not wait for it. Its sink writes into the instance and emits
// `test:started_call_finished` when the call ends. Unmounting it must end that call first,
// while its library is still loaded (tests/abi test_unload_race).
#include "test_module_support.hpp"

#include "test_module_config.hpp"

#include <atomic>

namespace {
class StarterHook final : public amp::sdk::HookModule {
 public:
  StarterHook(amp::sdk::Host host, std::string_view config) : HookModule(host) {
    provider_ = amp_test::TestConfig(config).text("provider", provider_);
    this->host().hook_register("prompt:submit", 0, "hooks-test-starter", &StarterHook::on_submit,
                               this);
  }

 private:
  static amp_status on_submit(void *self, amp_str, amp_str, amp_writer *) {
    auto &hook = *static_cast<StarterHook *>(self);
    amp_call_sink sink{sizeof(amp_call_sink), &hook, &StarterHook::on_event,
                       &StarterHook::on_finish, nullptr};
    amp_call_id call = 0;
    hook.host().provider_complete(hook.provider_, R"({"messages":[{"role":"user","content":"x"}]})",
                                  sink, &call);
    return AMP_OK;
  }
  static void on_event(void *, amp_call_id, amp_str) {}
  static void on_finish(void *self, amp_call_id, amp_status status, amp_str) {
    auto &hook = *static_cast<StarterHook *>(self);
    hook.finished_.store(true);  // the instance must still exist
    hook.host().notify("test:started_call_finished",
                       status == AMP_OK ? R"({"status":"ok"})" : R"({"status":"error"})");
  }

  std::string provider_ = "provider-mock";
  std::atomic<bool> finished_{false};
};
}  // namespace

AMP_DEFINE_MODULE(StarterHook, "hooks-test-starter", "1.0.0",
                  "Test module: a hook that starts a provider call and does not wait for it")
