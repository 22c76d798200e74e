// bad-throws: a provider whose complete throws std::runtime_error. The SDK boundary must turn
// the exception into the call's terminal error event instead of unwinding into the host.
#include "test_module_support.hpp"

#include <stdexcept>

namespace {
class ThrowingProvider final : public amp::sdk::ProviderModule {
 public:
  ThrowingProvider(amp::sdk::Host host, std::string_view) : ProviderModule(host) {}
  std::string info() override { return amp_test::provider_info_json("bad-throws"); }
  // Overridden although the default would do: the SDK takes `&M::list_models`, which does
  // not deduce when the function is inherited.
  std::string list_models() override { return "[]"; }
  void complete(amp_call_id, std::string_view) override {
    throw std::runtime_error("bad-throws: the provider exploded");
  }
};
}  // namespace

AMP_DEFINE_MODULE(ThrowingProvider, "bad-throws", "1.0.0",
                  "Test module: a provider whose complete throws")
