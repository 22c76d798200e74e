// bad-null-table: a descriptor whose kind_table is NULL. A host that trusted it would crash on
// the first call of the module's kind; the loader must refuse it instead.
#include "test_module_support.hpp"

extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(
    uint32_t host_abi_major, uint32_t, const amp_host_api *host_api) {
  if (host_abi_major != AMP_ABI_VERSION_MAJOR || host_api == nullptr) return nullptr;
  amp::sdk::host_api_slot() = host_api;
  static const amp_module_descriptor descriptor = [] {
    amp_module_descriptor d = *amp::sdk::detail::describe<amp_test::NoToolsModule>(
        "bad-null-table", "1.0.0", "Test module: descriptor without a kind table");
    d.kind_table = nullptr;
    return d;
  }();
  return &descriptor;
}
