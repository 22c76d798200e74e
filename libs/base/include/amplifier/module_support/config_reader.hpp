// Reading a module's config object: typed getters with defaults, type errors that name the key
// and what was found, and warnings about keys nobody asked for ("did you mean ...?"), because
// a misspelt key that is silently ignored is the commonest configuration bug.
#pragma once
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::module_support {

// A config value of the wrong type or out of range. The message names the module, the key
// and the offending value; a module constructor lets it propagate so the host reports a
// failed load with that message.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The Damerau-Levenshtein (optimal string alignment) distance: insertions, deletions,
// substitutions and adjacent transpositions each cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a plausible typo (within a
// third of the word's length, at least 2 edits), or failing that a candidate that `word` of 4+
// characters begins (a forgotten suffix: "delay" for "delay_ms"); else nullopt.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string> &candidates);

// Reads one JSON object. Every getter records its key as known; unknown_keys() lists the rest.
// A null value counts as absent (YAML `key:` with nothing after it), so the default applies.
// Not thread-safe: meant for a module constructor.
class ConfigReader {
 public:
  // `context` prefixes every message, e.g. "provider-mock config" or
  // "provider-mock config: responses[2]". Empty text means an empty object.
  // Throws ConfigError when the text is not a JSON object.
  ConfigReader(std::string_view config_json, std::string context);
  ConfigReader(boost::json::object config, std::string context);

  const std::string &context() const noexcept { return context_; }
  const boost::json::object &object() const noexcept { return config_; }

  // True when `key` is present and not null. Records the key as known.
  bool has(std::string_view key);

  std::string get_string(std::string_view key, std::string fallback);
  std::optional<std::string> get_optional_string(std::string_view key);
  std::int64_t get_int(std::string_view key, std::int64_t fallback,
                       std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  double get_number(std::string_view key, double fallback,
                    double min = -std::numeric_limits<double>::infinity(),
                    double max = std::numeric_limits<double>::infinity());
  bool get_bool(std::string_view key, bool fallback);
  // An array of strings; a single string is accepted as a one-element list.
  std::vector<std::string> get_string_list(std::string_view key,
                                           std::vector<std::string> fallback);
  // An array of anything (the caller checks the items).
  const boost::json::array *get_array(std::string_view key);
  // A nested object, read with the same rules; its context is "<context>: <key>".
  std::optional<ConfigReader> get_object(std::string_view key);
  // The raw value (nullptr when absent or null).
  const boost::json::value *get_value(std::string_view key);

  // Keys present in the object that no getter asked for, sorted.
  std::vector<std::string> unknown_keys() const;
  // One message per unknown key: "<context>: unknown key 'x' is ignored (did you mean 'y'?)".
  std::vector<std::string> unknown_key_messages() const;
  // Sends unknown_key_messages() to the host log as warnings. Call after every getter.
  void warn_unknown_keys(const amp::sdk::Host &host) const;

  // Builds "<context>: '<key>' <problem>" as a ConfigError, for checks the caller makes.
  ConfigError error(std::string_view key, std::string_view problem) const;

 private:
  const boost::json::value *lookup(std::string_view key);
  ConfigError type_error(std::string_view key, std::string_view expected,
                         const boost::json::value &found) const;

  boost::json::object config_;
  std::string context_;
  std::set<std::string, std::less<>> known_;
};

}  // namespace amplifier::module_support
