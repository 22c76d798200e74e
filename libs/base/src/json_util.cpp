#include "amplifier/module_support/json_util.hpp"

#include <boost/json/stream_parser.hpp>

#include <limits>
#include <system_error>

namespace amplifier::module_support {

boost::json::value parse_json(std::string_view text, std::string_view what) {
  // Event payloads nest deeper than Boost.JSON's default limit of 32 (a request holds
  // messages holding blocks holding tool inputs of any shape).
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  boost::json::stream_parser parser(boost::json::storage_ptr(), options);
  boost::system::error_code ec;
  const std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
  if (!ec && consumed != text.size()) {
    throw std::invalid_argument(std::string(what) + ": invalid JSON at offset " +
                                std::to_string(consumed) + ": unexpected text after the value");
  }
  if (!ec) parser.finish(ec);
  if (ec) {
    throw std::invalid_argument(std::string(what) + ": invalid JSON at offset " +
                                std::to_string(consumed) + ": " + ec.message());
  }
  return parser.release();
}

boost::json::object parse_json_object(std::string_view text, std::string_view what) {
  boost::json::value value = parse_json(text, what);
  if (!value.is_object()) {
    throw std::invalid_argument(std::string(what) + " must be a JSON object, got " +
                                std::string(describe_kind(value)));
  }
  return std::move(value.as_object());
}

std::string_view describe_kind(const boost::json::value &value) noexcept {
  switch (value.kind()) {
    case boost::json::kind::string: return "a string";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "an integer";
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
    case boost::json::kind::null: return "null";
  }
  return "an unknown JSON value";
}

bool is_integral(const boost::json::value &value) noexcept {
  if (value.is_int64() || value.is_uint64()) return true;
  if (!value.is_double()) return false;
  const double d = value.get_double();
  return d == static_cast<double>(static_cast<std::int64_t>(d)) &&
         d >= static_cast<double>(std::numeric_limits<std::int64_t>::min()) &&
         d <= static_cast<double>(std::numeric_limits<std::int64_t>::max());
}

std::int64_t to_int64(const boost::json::value &value) noexcept {
  if (value.is_int64()) return value.get_int64();
  if (value.is_uint64()) {
    const std::uint64_t u = value.get_uint64();
    constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return u > max ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(u);
  }
  return static_cast<std::int64_t>(value.get_double());
}

std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes) noexcept {
  if (text.size() <= max_bytes) return text.size();
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (10xxxxxx) so the cut lands before a lead byte.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

namespace {
bool continues_sequence(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }
}  // namespace

std::size_t utf8_length(std::string_view text) noexcept {
  std::size_t chars = 0;
  for (char byte : text) chars += continues_sequence(byte) ? 0 : 1;
  return chars;
}

std::size_t utf8_prefix_chars(std::string_view text, std::size_t max_chars) noexcept {
  if (text.size() <= max_chars) return text.size();  // no more bytes, so no more characters
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (continues_sequence(text[i])) continue;
    if (chars == max_chars) return i;  // the start of character max_chars + 1
    ++chars;
  }
  return text.size();
}

}  // namespace amplifier::module_support
