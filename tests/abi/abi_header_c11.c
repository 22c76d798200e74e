/* Compiled as strict C11 with -Wall -Wextra -pedantic -Werror: amplifier_plugin.h must be
 * pure C. It also reports the layout the C compiler gives the ABI structures, which the C++
 * test compares with its own (a C++-only construct in the header would change it). */
#include "abi_layout.h"

#include <stddef.h>

/* Every enum carries a FORCE_32BIT member, so every compiler gives it four bytes. */
_Static_assert(sizeof(amp_status) == 4, "amp_status must be 32 bits");
_Static_assert(sizeof(amp_module_kind) == 4, "amp_module_kind must be 32 bits");
_Static_assert(sizeof(amp_cancel_level) == 4, "amp_cancel_level must be 32 bits");
_Static_assert(sizeof(amp_log_level) == 4, "amp_log_level must be 32 bits");
_Static_assert(sizeof(amp_call_id) == 8, "amp_call_id must be 64 bits");

/* AMP_HAS_FIELD must work in C on a table that is shorter than this build's: one that ends
 * right before call_finish holds call_event but not call_finish. */
static const amp_host_api k_short_table = {.struct_size = offsetof(amp_host_api, call_finish),
                                           .abi_major = AMP_ABI_VERSION_MAJOR};

#define AMP_TEST_SIZE(type) {"sizeof(" #type ")", sizeof(type)},
#define AMP_TEST_OFFSET(type, field, since) {#type "." #field, offsetof(type, field)},

/* Not const: the two AMP_HAS_FIELD verdicts are not constant expressions in C. */
static amp_test_layout_entry k_layout[] = {
    AMP_ABI_TYPES(AMP_TEST_SIZE) AMP_ABI_FIELDS(AMP_TEST_OFFSET)
    {"AMP_HAS_FIELD(short table, call_event)", 0},
    {"AMP_HAS_FIELD(short table, call_finish)", 0},
};

const amp_test_layout_entry *amp_test_c_layout(size_t *count) {
  size_t n = sizeof k_layout / sizeof k_layout[0];
  k_layout[n - 2].value = AMP_HAS_FIELD(&k_short_table, amp_host_api, call_event) ? 1u : 0u;
  k_layout[n - 1].value = AMP_HAS_FIELD(&k_short_table, amp_host_api, call_finish) ? 1u : 0u;
  *count = n;
  return k_layout;
}
