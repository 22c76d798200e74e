// amplifier_plugin.h and plugin-api/abi.json describe one ABI: this file does not compile
// while they differ. Nothing here runs; every check is a static_assert, so the build (and CI)
// fails on the first disagreement, naming the field.
//   - the version numbers are equal;
//   - every described field exists (offsetof would not compile otherwise), and each struct
//     begins with its first described field;
//   - each field starts right where the one described before it ends: nothing was inserted
//     between two of them, and none is out of order;
//   - each struct ends right after its last described field: nothing was added at the end
//     without being described.
// What these cannot see: a field the description lacks that fits in padding (4 bytes after
// amp_module_descriptor.kind, or at its end) moves no described field and no size. The frozen
// layouts catch it once its minor is released; until then, review. The C header then agrees
// with the C compiler (tests/abi: abi_header_c11.c), and the layouts of released minors are
// frozen apart from both (tests/abi/abi_frozen_layouts.h).
#include "amplifier_abi_description.h"
#include "amplifier_plugin.h"

#include <cstddef>

namespace amplifier {
namespace {

static_assert(AMP_ABI_DESCRIBED_MAJOR == AMP_ABI_VERSION_MAJOR &&
                  AMP_ABI_DESCRIBED_MINOR == AMP_ABI_VERSION_MINOR,
              "plugin-api/abi.json describes another ABI version than amplifier_plugin.h");

constexpr std::size_t align_up(std::size_t at, std::size_t alignment) {
  return (at + alignment - 1) / alignment * alignment;
}

#define AMP_CHECK_NEXT_FIELD(type, field, next)                                             \
  static_assert(offsetof(type, next) ==                                                       \
                    align_up(offsetof(type, field) + sizeof(type::field),                     \
                             alignof(decltype(type::next))),                                  \
                "amplifier_plugin.h: " #type "." #next " does not follow " #type "." #field   \
                " as plugin-api/abi.json says");
AMP_ABI_FIELD_PAIRS(AMP_CHECK_NEXT_FIELD)
#undef AMP_CHECK_NEXT_FIELD

#define AMP_CHECK_LAST_FIELD(type, field)                                                   \
  static_assert(sizeof(type) == align_up(offsetof(type, field) + sizeof(type::field),         \
                                         alignof(type)),                                      \
                "amplifier_plugin.h: " #type " has fields after " #field                      \
                " that plugin-api/abi.json does not describe");
AMP_ABI_STRUCT_ENDS(AMP_CHECK_LAST_FIELD)
#undef AMP_CHECK_LAST_FIELD

#define AMP_CHECK_FIRST_FIELD(type, field)                                                  \
  static_assert(offsetof(type, field) == 0,                                                   \
                "amplifier_plugin.h: " #type " has fields before " #field                     \
                " that plugin-api/abi.json does not describe");
AMP_ABI_STRUCT_STARTS(AMP_CHECK_FIRST_FIELD)
#undef AMP_CHECK_FIRST_FIELD

}  // namespace
}  // namespace amplifier
