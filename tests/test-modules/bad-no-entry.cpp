// bad-no-entry: a shared library without `amplifier_module_entry`. It exports a plausible
// near-miss instead, so a loader that guessed or prefix-matched names would be caught.
#include "amplifier_plugin.h"

extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_init(uint32_t, uint32_t,
                                                                          const amp_host_api *) {
  return nullptr;
}
