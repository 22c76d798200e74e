// bad-no-version / bad-null-function: a tool module (no tools) whose descriptor breaks one
// rule, chosen at build time:
//   AMP_TEST_NO_VERSION     the descriptor's version is NULL (descriptor-fields);
//   AMP_TEST_NULL_CANCEL    the tool table's cancel is NULL (required-functions).
#include "test_module_support.hpp"

#ifndef AMP_TEST_MODULE_ID
#error "define AMP_TEST_MODULE_ID"
#endif

extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(
    uint32_t, uint32_t, const amp_host_api *host_api) {
  amp::sdk::host_api_slot() = host_api;
  static const amp_tool_vtable table = [] {
    amp_tool_vtable t = *amp::sdk::detail::Tables<amp_test::NoToolsModule>::table();
#ifdef AMP_TEST_NULL_CANCEL
    t.cancel = nullptr;
#endif
    return t;
  }();
  static const amp_module_descriptor descriptor = [] {
    amp_module_descriptor d = *amp::sdk::detail::describe<amp_test::NoToolsModule>(
        AMP_TEST_MODULE_ID, "1.0.0", "Test module: a descriptor that breaks one rule");
    d.kind_table = &table;
#ifdef AMP_TEST_NO_VERSION
    d.version = nullptr;
#endif
    return d;
  }();
  return &descriptor;
}
