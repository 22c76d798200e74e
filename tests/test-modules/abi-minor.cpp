// abi-minor-old / abi-minor-future: the same tool module stamped with another ABI minor.
// "old" claims ABI 1.0 and hands over a tool table no bigger than 1.0's: a host of a later
// minor must still load and run it (tables only grow at the end). "future" claims minor
// AMP_ABI_VERSION_MINOR + 1: this host is too old for it and must refuse it by name.
#include "test_module_support.hpp"

#ifndef AMP_TEST_CLAIMED_MINOR
#error "define AMP_TEST_CLAIMED_MINOR"
#endif

namespace {
class UpperTool : public amp::sdk::ToolModule {
 public:
  UpperTool(amp::sdk::Host host, std::string_view) : ToolModule(host) {}
  std::string list_tools() override {
    return R"([{"name":"minor_probe","description":"Answers with the ABI minor it was built for",)"
           R"("parameters":{"type":"object"}}])";
  }
  void execute(amp_call_id call, std::string_view, std::string_view) override {
    host().call_finish(call, AMP_OK,
                       R"({"success":true,"output":"minor )" +
                           std::to_string(AMP_TEST_CLAIMED_MINOR) + "\"}");
  }
};
}  // namespace

extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(
    uint32_t, uint32_t, const amp_host_api *host_api) {
  amp::sdk::host_api_slot() = host_api;
  static const amp_tool_vtable table = [] {
    amp_tool_vtable t = *amp::sdk::detail::Tables<UpperTool>::table();
    t.struct_size = offsetof(amp_tool_vtable, cancel) + sizeof(t.cancel);  // the 1.0 layout
    return t;
  }();
  static const amp_module_descriptor descriptor = [] {
    amp_module_descriptor d = *amp::sdk::detail::describe<UpperTool>(
        AMP_TEST_MODULE_ID, "1.0.0", "Test module: stamped with another ABI minor");
    d.abi_minor = AMP_TEST_CLAIMED_MINOR;
    d.kind_table = &table;
    return d;
  }();
  return &descriptor;
}
