// bad-double-finish: a provider that calls call_finish twice for the same call. The host must
// keep the first terminal event, ignore the second and log the protocol violation.
#include "test_module_support.hpp"

namespace {
class DoubleFinishProvider final : public amp::sdk::ProviderModule {
 public:
  DoubleFinishProvider(amp::sdk::Host host, std::string_view) : ProviderModule(host) {}
  std::string info() override { return amp_test::provider_info_json("bad-double-finish"); }
  // Overridden although the default would do: the SDK takes `&M::list_models`, which does
  // not deduce when the function is inherited.
  std::string list_models() override { return "[]"; }
  void complete(amp_call_id call, std::string_view) override {
    host().call_finish(call, AMP_OK, amp_test::text_response_json("first finish"));
    host().call_finish(call, AMP_OK, amp_test::text_response_json("second finish"));
  }
};
}  // namespace

AMP_DEFINE_MODULE(DoubleFinishProvider, "bad-double-finish", "1.0.0",
                  "Test module: a provider that finishes each call twice")
