// Small checks on text that many suites make.
#pragma once
#include <string_view>

namespace amp_test {

// Whether `part` occurs in `text`.
inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace amp_test
