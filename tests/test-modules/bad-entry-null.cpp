// bad-entry-null: the entry point refuses every host by returning NULL, as a module does when
// the host's ABI minor is too old for functions it needs.
#include "amplifier_plugin.h"

extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(uint32_t, uint32_t,
                                                                           const amp_host_api *) {
  return nullptr;
}
