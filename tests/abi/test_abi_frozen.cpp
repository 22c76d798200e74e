// The ABI's released layouts stay as they were: every field where abi_frozen_layouts.h froze
// it, every struct of every released minor as large as it was, and every field the
// description (plugin-api/abi.json) lists frozen. A field inserted in the middle of a table,
// or a field of an older minor moved, fails here even when the header and the description
// were changed together.
#include "abi_frozen_layouts.h"
#include "amplifier_abi_description.h"
#include "amplifier_plugin.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#if UINTPTR_MAX == UINT64_MAX

TEST_CASE("every field of every released minor is where it was frozen") {
  std::set<std::string> frozen;
#define AMP_CHECK_FROZEN_FIELD(type, field, offset, size)                                   \
  {                                                                                           \
    INFO(#type "." #field);                                                                   \
    CHECK(offsetof(type, field) == offset);                                                   \
    CHECK(sizeof(type::field) == size);                                                       \
    frozen.insert(#type "." #field);                                                          \
  }
  AMP_ABI_FROZEN_OFFSETS(AMP_CHECK_FROZEN_FIELD)
#undef AMP_CHECK_FROZEN_FIELD
  // Every field the description lists up to the newest frozen minor is frozen, and nothing
  // frozen has left the description.
  std::set<std::string> described;
#define AMP_DESCRIBED_FIELD(type, field, since)                                             \
  if (since <= AMP_ABI_FROZEN_MINOR) described.insert(#type "." #field);
  AMP_ABI_FIELDS(AMP_DESCRIBED_FIELD)
#undef AMP_DESCRIBED_FIELD
  CHECK(described == frozen);
}

TEST_CASE("every struct of every released minor is as large as it was") {
  // The size of each struct as of each minor, from the description: the end of its last
  // field of that minor or older, aligned as the struct is.
  std::map<std::pair<std::string, int>, std::size_t> ends;
  std::map<std::string, std::size_t> alignment;
#define AMP_FIELD_END(type, field, since)                                                   \
  for (int minor = since; minor <= AMP_ABI_FROZEN_MINOR; ++minor) {                           \
    auto &end = ends[{#type, minor}];                                                         \
    end = std::max(end, offsetof(type, field) + sizeof(type::field));                         \
  }                                                                                           \
  alignment[#type] = alignof(type);
  AMP_ABI_FIELDS(AMP_FIELD_END)
#undef AMP_FIELD_END
  std::map<std::pair<std::string, int>, std::size_t> frozen;
#define AMP_FROZEN_SIZE(type, minor, size) frozen[{#type, minor}] = size;
  AMP_ABI_FROZEN_SIZES(AMP_FROZEN_SIZE)
#undef AMP_FROZEN_SIZE
  CHECK(frozen.size() == ends.size());
  for (const auto &[key, end] : ends) {
    INFO(key.first << " in ABI 1." << key.second);
    const std::size_t a = alignment[key.first];
    REQUIRE(frozen.count(key) == 1);
    CHECK(frozen[key] == (end + a - 1) / a * a);
  }
}

TEST_CASE("the newest frozen minor is this header's, or the one before it") {
  // A header with a minor newer than the frozen one is a release in the making: once it
  // ships, its layout is appended to abi_frozen_layouts.h.
  CHECK(AMP_ABI_FROZEN_MINOR <= AMP_ABI_VERSION_MINOR);
  CHECK(AMP_ABI_FROZEN_MINOR >= AMP_ABI_VERSION_MINOR - 1);
}

#endif
