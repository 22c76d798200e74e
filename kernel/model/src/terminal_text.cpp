#include "amplifier/terminal_text.hpp"

#include <cstddef>
#include <cstdint>

namespace amplifier {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence starting at text[at]: 1..4 when it is a complete, valid
// one (no overlong form, no surrogate, at most U+10FFFF); 0 when invalid; -1 when it is a valid
// start cut off by the end of `text`.
int sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t lead = byte(at);
  if (lead < 0x80) return 1;
  int length = 0;
  std::uint8_t low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  for (int i = 1; i < length; ++i) {
    if (at + i >= text.size()) return -1;
    const std::uint8_t next = byte(at + i);
    if (i == 1 ? (next < low || next > high) : (next < 0x80 || next > 0xBF)) return 0;
  }
  return length;
}

// Appends text[0, end) made safe; returns where an incomplete trailing sequence starts (end
// when there is none) if `keep_incomplete`, else replaces it.
std::size_t append_safe(std::string &out, std::string_view text, bool keep_incomplete) {
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    const auto u = static_cast<std::uint8_t>(c);
    if (u < 0x80) {
      if (c == '\n' || c == '\t' || (u >= 0x20 && u < 0x7F)) {
        out.push_back(c);
      } else {
        out.push_back('^');
        out.push_back(u == 0x7F ? '?' : static_cast<char>(u + 0x40));  // ESC -> ^[
      }
      ++at;
      continue;
    }
    const int length = sequence_length(text, at);
    if (length < 0) {
      if (keep_incomplete) return at;
      out.append(kReplacement);
      return text.size();
    }
    if (length == 0) {
      out.append(kReplacement);
      ++at;
      continue;
    }
    // U+0080..U+009F, the C1 controls, are C2 80..C2 9F.
    if (length == 2 && u == 0xC2 && static_cast<std::uint8_t>(text[at + 1]) <= 0x9F)
      out.append(kReplacement);
    else
      out.append(text.substr(at, length));
    at += length;
  }
  return text.size();
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_safe(out, text, false);
  return out;
}

std::string TerminalTextStream::feed(std::string_view piece) {
  std::string out;
  std::string joined;
  if (!pending_.empty()) {
    joined = pending_ + std::string(piece);
    piece = joined;
    pending_.clear();
  }
  out.reserve(piece.size());
  const std::size_t kept_from = append_safe(out, piece, true);
  pending_.assign(piece.substr(kept_from));
  return out;
}

std::string TerminalTextStream::finish() {
  std::string out;
  if (!pending_.empty()) out.append(kReplacement);
  pending_.clear();
  return out;
}

}  // namespace amplifier
