// Shared by the libFuzzer targets: invariant checks that report and abort (libFuzzer then
// saves the input as a crash), and splitting one input into several fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

// An invariant the target asserts beyond "does not crash". On failure: a message naming the
// invariant and the place, then abort(), which libFuzzer reports as a finding.
#define FUZZ_CHECK(condition)                                                             \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #condition, __FILE__, \
                   __LINE__);                                                             \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

namespace amp_fuzz {

inline std::string_view as_text(const std::uint8_t *data, std::size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

// Splits `text` at every `separator` (at most `max_parts` parts; the last keeps the rest).
inline std::vector<std::string_view> split(std::string_view text, char separator,
                                           std::size_t max_parts = SIZE_MAX) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const std::size_t at = text.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  parts.push_back(text);
  return parts;
}

// A small deterministic hash of the input, to pick chunk sizes without using input bytes.
inline std::uint64_t hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace amp_fuzz
