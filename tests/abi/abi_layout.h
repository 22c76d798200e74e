/* The ABI structures whose layout the C and C++ compilers must agree on: every type and field
 * plugin-api/abi.json describes (AMP_ABI_TYPES, AMP_ABI_FIELDS, generated), so
 * abi_header_c11.c (compiled as strict C11) and test_abi_header.cpp list the same fields. */
#ifndef AMP_TEST_ABI_LAYOUT_H
#define AMP_TEST_ABI_LAYOUT_H

#include "amplifier_abi_description.h"
#include "amplifier_plugin.h"

/* One measured quantity: "sizeof(T)" or "T.field" with its offset. */
typedef struct amp_test_layout_entry {
  const char *name;
  size_t value;
} amp_test_layout_entry;

#ifdef __cplusplus
extern "C" {
#endif
/* Implemented in abi_header_c11.c: the layout as the C compiler sees it. */
const amp_test_layout_entry *amp_test_c_layout(size_t *count);
#ifdef __cplusplus
}
#endif

#endif /* AMP_TEST_ABI_LAYOUT_H */
