// bad-provider-info: a provider whose ProviderInfo has a config field of an unknown
// field_type ("password" instead of "secret"). Otherwise correct: it answers every request.
#include "test_module_support.hpp"

namespace {
class BadInfoProvider final : public amp::sdk::ProviderModule {
 public:
  BadInfoProvider(amp::sdk::Host host, std::string_view) : ProviderModule(host) {}
  std::string info() override {
    return R"({"id":"bad-provider-info","display_name":"Bad info","config_fields":[)"
           R"({"id":"api_key","display_name":"API key","field_type":"password"}]})";
  }
  // Overridden although the default would do: the SDK takes `&M::list_models`.
  std::string list_models() override { return "[]"; }
  void complete(amp_call_id call, std::string_view) override {
    host().call_finish(call, AMP_OK, amp_test::text_response_json("hello"));
  }
};
}  // namespace

AMP_DEFINE_MODULE(BadInfoProvider, "bad-provider-info", "1.0.0",
                  "Test module: ProviderInfo with an unknown field_type")
