// abi-minor-old / -future / -forward: the same tool module stamped with another ABI minor.
// - "old" claims ABI 1.0, with a descriptor and a tool table no bigger than 1.0's (no
//   min_host_minor): a host of a later minor must still load and run it (tables only grow at
//   the end).
// - "future" claims minor AMP_ABI_VERSION_MINOR + 1 and needs it (min_host_minor): this host
//   is too old for it and must refuse it by name.
// - "forward" was built with headers of minor AMP_ABI_VERSION_MINOR + 1, whose tool table has
//   grown a field this host does not know, but declares it runs on hosts from minor 1 on: this
//   host must load and run it.
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
  // A tool table as a later minor might have grown it: one field more at the end.
  struct GrownToolTable {
    amp_tool_vtable known;
    void (*added_later)(void *instance);
  };
  static const GrownToolTable table = [] {
    GrownToolTable t{*amp::sdk::detail::Tables<UpperTool>::table(), nullptr};
#ifdef AMP_TEST_MIN_HOST_MINOR
    t.known.struct_size = sizeof(GrownToolTable);
#else
    t.known.struct_size = offsetof(amp_tool_vtable, cancel) + sizeof(t.known.cancel);  // 1.0
#endif
    return t;
  }();
  static const amp_module_descriptor descriptor = [] {
    amp_module_descriptor d = *amp::sdk::detail::describe<UpperTool>(
        AMP_TEST_MODULE_ID, "1.0.0", "Test module: stamped with another ABI minor");
    d.abi_minor = AMP_TEST_CLAIMED_MINOR;
    d.kind_table = &table.known;
#ifdef AMP_TEST_MIN_HOST_MINOR
    d.min_host_minor = AMP_TEST_MIN_HOST_MINOR;
#else
    d.struct_size = offsetof(amp_module_descriptor, min_host_minor);  // before 1.2
#endif
    return d;
  }();
  return &descriptor;
}
