// bad-hook-result: a hook whose tool:pre handler answers a HookResult with an unknown action
// ("explode"). `module validate` must name the event and the fault (hook-events).
#include "amplifier_sdk.hpp"

namespace {
class BadResultHook final : public amp::sdk::HookModule {
 public:
  BadResultHook(amp::sdk::Host host, std::string_view) : HookModule(host) {
    this->host().hook_register("tool:pre", 0, "bad-hook-result", &BadResultHook::on_tool_pre, this);
  }

 private:
  static amp_status on_tool_pre(void *, amp_str, amp_str, amp_writer *result) {
    amp::sdk::write_to(result, R"({"action":"explode"})");
    return AMP_OK;
  }
};
}  // namespace

AMP_DEFINE_MODULE(BadResultHook, "bad-hook-result", "1.0.0",
                  "Test module: a hook answering an invalid HookResult")
