#include "amplifier/context/token_estimate.hpp"

#include <algorithm>

namespace amplifier::context {
namespace json = boost::json;

namespace {
constexpr std::size_t kQuotes = 2;
constexpr std::size_t kNumberChars = 6;  // a typical number; exact width does not matter here

std::optional<std::int64_t> count(const json::object &usage, std::string_view key) {
  const json::value *value = usage.if_contains(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->get_uint64());
  if (value->is_double()) return static_cast<std::int64_t>(value->get_double());
  return std::nullopt;
}
}  // namespace

std::size_t serialized_chars(const json::value &value) {
  switch (value.kind()) {
    case json::kind::string:
      return value.get_string().size() + kQuotes;
    case json::kind::array: {
      const json::array &items = value.get_array();
      std::size_t chars = 2 + (items.empty() ? 0 : items.size() - 1);  // brackets, commas
      for (const json::value &item : items) chars += serialized_chars(item);
      return chars;
    }
    case json::kind::object: {
      const json::object &fields = value.get_object();
      std::size_t chars = 2 + (fields.empty() ? 0 : fields.size() - 1);  // braces, commas
      for (const auto &field : fields)
        chars += field.key().size() + kQuotes + 1 + serialized_chars(field.value());  // key:
      return chars;
    }
    case json::kind::bool_:
    case json::kind::null:
      return 4;
    default:
      return kNumberChars;
  }
}

std::int64_t estimate_message_tokens(const json::value &message) {
  const auto chars = static_cast<std::int64_t>(serialized_chars(message));
  return std::max<std::int64_t>(1, (chars + kCharsPerToken - 1) / kCharsPerToken);
}

std::optional<std::int64_t> prompt_tokens_of_usage(const json::object &usage) {
  const auto total = count(usage, "total_tokens");
  const auto output = count(usage, "output_tokens");
  if (total && output && *total > *output) return *total - *output;
  const auto input = count(usage, "input_tokens");
  if (!input || *input <= 0) return std::nullopt;
  return *input + count(usage, "cache_read_tokens").value_or(0) +
         count(usage, "cache_write_tokens").value_or(0);
}

void UsageCalibration::request_sent(std::int64_t estimated_message_tokens) noexcept {
  last_sent_.store(estimated_message_tokens);
}

void UsageCalibration::usage_reported(std::int64_t prompt_tokens) noexcept {
  const std::int64_t sent = last_sent_.load();
  if (sent < 0) return;  // a response to a request this context did not shape
  overhead_.store(std::max<std::int64_t>(0, prompt_tokens - sent));
}

std::int64_t UsageCalibration::overhead() const noexcept { return overhead_.load(); }

}  // namespace amplifier::context
