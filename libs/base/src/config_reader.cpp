#include "amplifier/module_support/config_reader.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>

namespace amplifier::module_support {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows are enough for the transposition rule (it looks two rows back).
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string> &candidates) {
  // A third of the word's length, at least 2: "modle" -> "model", but not "x" -> "model".
  const std::size_t tolerance = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = tolerance + 1;
  for (const auto &candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  if (best) return best;
  // A forgotten suffix ("delay" for "delay_ms") is too far by edit distance but obvious.
  constexpr std::size_t kMinPrefix = 4;
  for (const auto &candidate : candidates) {
    if (word.size() >= kMinPrefix && std::string_view(candidate).starts_with(word)) return candidate;
  }
  return std::nullopt;
}

namespace {
boost::json::object parse_config_object(std::string_view text, const std::string &context) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
  try {
    return parse_json_object(text, context);
  } catch (const std::invalid_argument &e) {
    throw ConfigError(e.what());
  }
}

// Shortest round-trip form ("0.92", "1"), not Boost.JSON's "9.2E-1".
std::string format_number(double d) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, d);
  return std::string(buffer, result.ptr);
}

std::string preview(const boost::json::value &value) {
  std::string text = value.is_double() ? format_number(value.get_double())
                                       : boost::json::serialize(value);
  constexpr std::size_t kMax = 60;
  if (text.size() > kMax) text = text.substr(0, utf8_prefix_length(text, kMax)) + "...";
  return text;
}
}  // namespace

ConfigReader::ConfigReader(std::string_view config_json, std::string context)
    : config_(parse_config_object(config_json, context)), context_(std::move(context)) {}

ConfigReader::ConfigReader(boost::json::object config, std::string context)
    : config_(std::move(config)), context_(std::move(context)) {}

const boost::json::value *ConfigReader::lookup(std::string_view key) {
  known_.emplace(key);
  const boost::json::value *value = config_.if_contains(key);
  return value && !value->is_null() ? value : nullptr;
}

ConfigError ConfigReader::error(std::string_view key, std::string_view problem) const {
  return ConfigError(context_ + ": '" + std::string(key) + "' " + std::string(problem));
}

ConfigError ConfigReader::type_error(std::string_view key, std::string_view expected,
                                     const boost::json::value &found) const {
  return error(key, "must be " + std::string(expected) + ", got " +
                        std::string(describe_kind(found)) + " (" + preview(found) + ")");
}

bool ConfigReader::has(std::string_view key) { return lookup(key) != nullptr; }

std::string ConfigReader::get_string(std::string_view key, std::string fallback) {
  auto value = get_optional_string(key);
  return value ? std::move(*value) : std::move(fallback);
}

std::optional<std::string> ConfigReader::get_optional_string(std::string_view key) {
  const boost::json::value *value = lookup(key);
  if (!value) return std::nullopt;
  if (!value->is_string()) throw type_error(key, "a string", *value);
  return std::string(value->get_string());
}

std::int64_t ConfigReader::get_int(std::string_view key, std::int64_t fallback, std::int64_t min,
                                   std::int64_t max) {
  const boost::json::value *value = lookup(key);
  if (!value) return fallback;
  if (!is_integral(*value)) throw type_error(key, "an integer", *value);
  const std::int64_t n = to_int64(*value);
  if (n < min || n > max) {
    throw error(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", got " + std::to_string(n));
  }
  return n;
}

double ConfigReader::get_number(std::string_view key, double fallback, double min, double max) {
  const boost::json::value *value = lookup(key);
  if (!value) return fallback;
  if (!value->is_number()) throw type_error(key, "a number", *value);
  const double d = value->to_number<double>();
  if (!(d >= min && d <= max)) {
    throw error(key, "must be between " + format_number(min) + " and " + format_number(max) +
                         ", got " + format_number(d));
  }
  return d;
}

bool ConfigReader::get_bool(std::string_view key, bool fallback) {
  const boost::json::value *value = lookup(key);
  if (!value) return fallback;
  if (!value->is_bool()) throw type_error(key, "a boolean (true or false)", *value);
  return value->get_bool();
}

std::vector<std::string> ConfigReader::get_string_list(std::string_view key,
                                                       std::vector<std::string> fallback) {
  const boost::json::value *value = lookup(key);
  if (!value) return fallback;
  if (value->is_string()) return {std::string(value->get_string())};
  if (!value->is_array()) throw type_error(key, "a list of strings", *value);
  std::vector<std::string> items;
  const auto &array = value->get_array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (!array[i].is_string()) {
      throw type_error(std::string(key) + "[" + std::to_string(i) + "]", "a string", array[i]);
    }
    items.emplace_back(array[i].get_string());
  }
  return items;
}

const boost::json::array *ConfigReader::get_array(std::string_view key) {
  const boost::json::value *value = lookup(key);
  if (!value) return nullptr;
  if (!value->is_array()) throw type_error(key, "a list", *value);
  return &value->get_array();
}

std::optional<ConfigReader> ConfigReader::get_object(std::string_view key) {
  const boost::json::value *value = lookup(key);
  if (!value) return std::nullopt;
  if (!value->is_object()) throw type_error(key, "an object", *value);
  return ConfigReader(value->get_object(), context_ + ": " + std::string(key));
}

const boost::json::value *ConfigReader::get_value(std::string_view key) { return lookup(key); }

std::vector<std::string> ConfigReader::unknown_keys() const {
  std::vector<std::string> unknown;
  for (const auto &entry : config_) {
    if (!known_.contains(std::string_view(entry.key()))) unknown.emplace_back(entry.key());
  }
  std::sort(unknown.begin(), unknown.end());
  return unknown;
}

std::vector<std::string> ConfigReader::unknown_key_messages() const {
  const std::vector<std::string> candidates(known_.begin(), known_.end());
  std::vector<std::string> messages;
  for (const auto &key : unknown_keys()) {
    std::string message = context_ + ": unknown key '" + key + "' is ignored";
    if (auto suggestion = closest_match(key, candidates)) {
      message += " (did you mean '" + *suggestion + "'?)";
    } else {
      std::string list;
      for (const auto &c : candidates) list += (list.empty() ? "" : ", ") + c;
      message += " (known keys: " + list + ")";
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

void ConfigReader::warn_unknown_keys(const amp::sdk::Host &host) const {
  for (const auto &message : unknown_key_messages()) host.warn(message);
}

}  // namespace amplifier::module_support
