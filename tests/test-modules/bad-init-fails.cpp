// bad-init-fails: create fails with a human-readable reason (the SDK turns the constructor's
// exception into an error status plus the message in `error`).
#include "amplifier_sdk.hpp"

#include <stdexcept>

namespace {
// Derives from ToolModule itself: the SDK takes `&M::list_tools`, which does not deduce when
// the override lives in an intermediate base class.
class RefusingTool final : public amp::sdk::ToolModule {
 public:
  RefusingTool(amp::sdk::Host host, std::string_view) : ToolModule(host) {
    throw std::runtime_error("the setting 'endpoint' is required but missing");
  }
  std::string list_tools() override { return "[]"; }
  void execute(amp_call_id call, std::string_view, std::string_view) override {
    host().call_fail(call, "internal", "never constructed, so never called");
  }
};
}  // namespace

AMP_DEFINE_MODULE(RefusingTool, "bad-init-fails", "1.0.0", "Test module: create always fails")
