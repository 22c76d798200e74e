// amplifier_sdk_json.hpp: the SDK's JSON text helpers, header-only and standard-library-only:
// quoting a string as JSON and the JSON forms of typed stream deltas (amp_delta_kind).
//
// They write text directly, with no document in between, and their output is byte for byte
// what Boost.JSON's serializer writes for the same values (the host renders hook payloads and
// the SDK renders fallback events with them, and neither may differ from the JSON path).
#ifndef AMPLIFIER_SDK_JSON_HPP
#define AMPLIFIER_SDK_JSON_HPP

#include "amplifier_plugin.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace amp::sdk::json {

namespace detail {
// 0: copied as is; otherwise the character written after the backslash ('u': \u00xx).
constexpr std::array<char, 256> make_escape_table() noexcept {
  std::array<char, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[static_cast<std::size_t>(c)] = 'u';
  table['\b'] = 'b';
  table['\t'] = 't';
  table['\n'] = 'n';
  table['\f'] = 'f';
  table['\r'] = 'r';
  table['"'] = '"';
  table['\\'] = '\\';
  return table;
}
inline constexpr std::array<char, 256> kEscape = make_escape_table();
}  // namespace detail

// Appends `text` as a JSON string literal, quotes included: `"` and `\` escaped, \b \t \n \f
// \r short, other control characters as \u00xx, everything else (UTF-8 included) as it is.
inline void append_quoted(std::string &out, std::string_view text) {
  out.push_back('"');
  std::size_t run = 0;  // start of the pending stretch copied as it is
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char escape = detail::kEscape[static_cast<unsigned char>(text[i])];
    if (escape == 0) continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    const char pair[2] = {'\\', escape};
    out.append(pair, 2);
    if (escape == 'u') {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto c = static_cast<unsigned char>(text[i]);
      const char digits[4] = {'0', '0', kHex[c >> 4], kHex[c & 15]};
      out.append(digits, 4);
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

inline std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  append_quoted(out, text);
  return out;
}

inline void append_uint(std::string &out, std::uint64_t value) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, static_cast<std::size_t>(end - buffer));
}

// A delta's "type" in JSON, and the field that holds its text. Empty for an unknown kind.
inline std::string_view delta_type(amp_delta_kind kind) noexcept {
  switch (kind) {
    case AMP_DELTA_TEXT: return "text";
    case AMP_DELTA_THINKING: return "thinking";
    case AMP_DELTA_SIGNATURE: return "signature";
    case AMP_DELTA_TOOL_INPUT: return "tool_input";
    case AMP_DELTA_REDACTED_THINKING: return "redacted_thinking";
    default: return {};
  }
}
inline std::string_view delta_field(amp_delta_kind kind) noexcept {
  switch (kind) {
    case AMP_DELTA_TEXT: return "text";
    case AMP_DELTA_THINKING: return "thinking";
    case AMP_DELTA_SIGNATURE: return "signature";
    case AMP_DELTA_TOOL_INPUT: return "partial_json";
    case AMP_DELTA_REDACTED_THINKING: return "data";
    default: return {};
  }
}
inline bool is_known_delta(amp_delta_kind kind) noexcept { return !delta_type(kind).empty(); }

// {"type":...,<field>:text}
inline void append_delta_object(std::string &out, amp_delta_kind kind, std::string_view text) {
  out += R"({"type":")";
  out += delta_type(kind);
  out += R"(",")";
  out += delta_field(kind);
  out += R"(":)";
  append_quoted(out, text);
  out.push_back('}');
}

// The stream event a typed delta stands for:
// {"type":"content_block_delta","index":N,"delta":{"type":...,<field>:text}}
inline void append_delta_event(std::string &out, std::uint32_t index, amp_delta_kind kind,
                               std::string_view text) {
  out += R"({"type":"content_block_delta","index":)";
  append_uint(out, index);
  out += R"(,"delta":)";
  append_delta_object(out, kind, text);
  out.push_back('}');
}

// The data of the `content_block:delta` hook event for a typed delta, before the host adds its
// default fields: {"block_index":N,"delta":{...}}, or {"block_index":N,"partial_json":text}
// for tool input.
inline void append_delta_hook_data(std::string &out, std::uint32_t index, amp_delta_kind kind,
                                   std::string_view text) {
  out += R"({"block_index":)";
  append_uint(out, index);
  if (kind == AMP_DELTA_TOOL_INPUT) {
    out += R"(,"partial_json":)";
    append_quoted(out, text);
  } else {
    out += R"(,"delta":)";
    append_delta_object(out, kind, text);
  }
  out.push_back('}');
}

}  // namespace amp::sdk::json

#endif  // AMPLIFIER_SDK_JSON_HPP
