// bad-abi-major: a well-formed module whose descriptor claims ABI major 99. The entry point
// accepts any host, so only the loader's check of the descriptor's version can refuse it.
#include "test_module_support.hpp"

extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(
    uint32_t, uint32_t, const amp_host_api *host_api) {
  amp::sdk::host_api_slot() = host_api;
  static const amp_module_descriptor descriptor = [] {
    amp_module_descriptor d = *amp::sdk::detail::describe<amp_test::NoToolsModule>(
        "bad-abi-major", "1.0.0", "Test module: built against ABI major 99");
    d.abi_major = 99;
    return d;
  }();
  return &descriptor;
}
