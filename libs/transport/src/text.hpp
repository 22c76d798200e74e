// Small text helpers several transport files share (internal).
#pragma once
#include <chrono>
#include <string>
#include <string_view>

namespace amplifier::transport::detail {

// `text` with A-Z lowered; other bytes as they are (header names, schemes, host names).
inline std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return out;
}

// "1500 ms", for messages about deadlines.
inline std::string milliseconds_text(std::chrono::milliseconds duration) {
  return std::to_string(duration.count()) + " ms";
}

}  // namespace amplifier::transport::detail
