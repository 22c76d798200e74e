// JSON helpers for module boundaries: payloads arrive as text and a module must answer a
// malformed one with an error that says what was wrong and where, never with a crash.
#pragma once
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace amplifier::module_support {

// The nesting depth parse_json accepts.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Parses `text` as one JSON document. Throws std::invalid_argument reading
// "<what>: invalid JSON at offset N: <reason>" so callers can pass it on verbatim.
boost::json::value parse_json(std::string_view text, std::string_view what);

// Like parse_json, and additionally requires an object:
// "<what> must be a JSON object, got an array".
boost::json::object parse_json_object(std::string_view text, std::string_view what);

// "a string", "an integer", "a number", "a boolean", "an array", "an object", "null":
// for messages of the form "'x' must be a string, got an array".
std::string_view describe_kind(const boost::json::value &value) noexcept;

// True for int64/uint64 values and for doubles with no fractional part (YAML and JSON
// producers disagree on whether 8 and 8.0 are the same number).
bool is_integral(const boost::json::value &value) noexcept;

// The integral value of `value`; precondition is_integral(value). Saturates uint64 values
// beyond the int64 range.
std::int64_t to_int64(const boost::json::value &value) noexcept;

// The longest prefix of `text` of at most `max_bytes` bytes that does not split a UTF-8
// sequence (so a cut string stays valid UTF-8).
std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes) noexcept;

// The characters (code points) of UTF-8 `text`: its bytes that do not continue a sequence.
std::size_t utf8_length(std::string_view text) noexcept;

// The byte length of the first `max_chars` characters of UTF-8 `text` (all of it when it has
// no more), so a cut by characters never splits a sequence either.
std::size_t utf8_prefix_chars(std::string_view text, std::size_t max_chars) noexcept;

// Fields read leniently, for payloads whose optional parts may be missing or of another type:
// the field when it holds the expected kind, else an empty view, nullptr or nullopt.
inline std::string_view string_at(const boost::json::object &object,
                                  std::string_view key) noexcept {
  const boost::json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}
inline const boost::json::object *object_at(const boost::json::object &object,
                                            std::string_view key) noexcept {
  const boost::json::value *value = object.if_contains(key);
  return value ? value->if_object() : nullptr;
}
inline const boost::json::array *array_at(const boost::json::object &object,
                                          std::string_view key) noexcept {
  const boost::json::value *value = object.if_contains(key);
  return value ? value->if_array() : nullptr;
}
// An integer field (written as an integer, in the int64 range).
inline std::optional<std::int64_t> count_at(const boost::json::object &object,
                                            std::string_view key) noexcept {
  const boost::json::value *value = object.if_contains(key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64() && value->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(value->get_uint64());
  return std::nullopt;
}

}  // namespace amplifier::module_support
