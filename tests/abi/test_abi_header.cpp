// The C ABI header as C sees it: abi_header_c11.c compiles it as strict C11 (-Werror) at
// build time; here its layout is compared with the C++ compiler's.
#include "abi_layout.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <string>

namespace {

std::map<std::string, std::size_t> cxx_layout() {
  std::map<std::string, std::size_t> layout;
#define AMP_TEST_SIZE(type) layout["sizeof(" #type ")"] = sizeof(type);
#define AMP_TEST_OFFSET(type, field, since) layout[#type "." #field] = offsetof(type, field);
  AMP_ABI_TYPES(AMP_TEST_SIZE)
  AMP_ABI_FIELDS(AMP_TEST_OFFSET)
#undef AMP_TEST_SIZE
#undef AMP_TEST_OFFSET
  return layout;
}

}  // namespace

TEST_CASE("the C and C++ compilers agree on the layout of every ABI structure") {
  std::size_t count = 0;
  const amp_test_layout_entry *c_layout = amp_test_c_layout(&count);
  auto expected = cxx_layout();
  std::size_t compared = 0;
  for (std::size_t i = 0; i < count; ++i) {
    auto it = expected.find(c_layout[i].name);
    if (it == expected.end()) continue;  // the AMP_HAS_FIELD entries, checked below
    INFO(c_layout[i].name);
    CHECK(c_layout[i].value == it->second);
    ++compared;
  }
  CHECK(compared == expected.size());
}

TEST_CASE("AMP_HAS_FIELD in C tells a short (older) host table's fields from missing ones") {
  std::size_t count = 0;
  const amp_test_layout_entry *c_layout = amp_test_c_layout(&count);
  std::map<std::string, std::size_t> verdicts;
  for (std::size_t i = 0; i < count; ++i) verdicts[c_layout[i].name] = c_layout[i].value;
  CHECK(verdicts.at("AMP_HAS_FIELD(short table, call_event)") == 1);
  CHECK(verdicts.at("AMP_HAS_FIELD(short table, call_finish)") == 0);
}

TEST_CASE("every ABI enum is four bytes in C++ too") {
  CHECK(sizeof(amp_status) == 4);
  CHECK(sizeof(amp_module_kind) == 4);
  CHECK(sizeof(amp_cancel_level) == 4);
  CHECK(sizeof(amp_log_level) == 4);
}
