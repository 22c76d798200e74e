// Model JSON (kernel/model): Message, ContentBlock, ChatRequest, ChatResponse, ToolResult and
// lists of messages, and the legacy converter (legacy.hpp).
// Invariants: from_json either succeeds or throws ModelError; what to_json writes parses again
// and serialises to the same JSON (parse(serialize(parse(x))) == parse(x)); the legacy reader
// accepts what the unified reader accepts (barring a legacy tool_calls field) and converts a
// unified-shape message to the same message; to_unified's output round-trips like any message.
#include "fuzz_support.hpp"

#include "amplifier/content.hpp"
#include "amplifier/legacy.hpp"
#include "amplifier/model.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <limits>
#include <optional>

namespace json = boost::json;

namespace {

template <class T>
std::optional<T> parse_as(const json::value &value) {
  try {
    return amplifier::from_json<T>(value);
  } catch (const amplifier::ModelError &) {
    return std::nullopt;
  }
}

json::value as_value(json::object object) { return json::value(std::move(object)); }
json::value as_value(json::array array) { return json::value(std::move(array)); }

// Equal, with doubles compared to a few ulps: Boost.JSON 1.81 parses doubles with its fast,
// not its exact, algorithm, so a double written as text and read back may move in its last
// bit (third-party behaviour; exact parsing came in a later Boost).
bool same_json(const json::value &a, const json::value &b) {
  if (a.is_double() || b.is_double()) {
    if (!a.is_number() || !b.is_number()) return false;
    const double x = a.to_number<double>(), y = b.to_number<double>();
    return x == y || std::abs(x - y) <= 4 * std::numeric_limits<double>::epsilon() *
                                             std::max(std::abs(x), std::abs(y));
  }
  if (a.is_object() && b.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto &[key, value] : x) {
      const json::value *other = y.if_contains(key);
      if (!other || !same_json(value, *other)) return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same_json(x[i], y[i])) return false;
    return true;
  }
  return a == b;
}

// to_json(from_json(to_json(x))) == to_json(x), and the JSON text parses to the same value.
template <class T>
void check_round_trip(const T &parsed) {
  const json::value first = as_value(amplifier::to_json(parsed));
  const std::optional<T> again = parse_as<T>(first);
  FUZZ_CHECK(again.has_value());
  const json::value second = as_value(amplifier::to_json(*again));
  FUZZ_CHECK(first == second);
  FUZZ_CHECK(same_json(json::parse(json::serialize(first)), first));
}

template <class T>
std::optional<T> round_trip(const json::value &value) {
  std::optional<T> parsed = parse_as<T>(value);
  if (parsed) check_round_trip(*parsed);
  return parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  json::value value;
  try {
    value = amplifier::parse_json(amp_fuzz::as_text(data, size));
  } catch (const amplifier::ModelError &) {
    return 0;
  }

  const std::optional<amplifier::Message> message = round_trip<amplifier::Message>(value);
  round_trip<amplifier::ContentBlock>(value);
  round_trip<std::vector<amplifier::Message>>(value);
  round_trip<amplifier::ChatRequest>(value);
  round_trip<amplifier::ChatResponse>(value);
  round_trip<amplifier::ToolResult>(value);
  round_trip<amplifier::ToolSpec>(value);
  round_trip<amplifier::Usage>(value);

  // The legacy reader and converter.
  std::optional<amplifier::StoredMessage> stored = parse_as<amplifier::StoredMessage>(value);
  // It admits both shapes: whatever the unified reader takes, unless a `tool_calls` field
  // (kept as an unknown field there) marks it legacy and is malformed as a legacy list.
  if (message && !value.as_object().contains("tool_calls")) FUZZ_CHECK(stored.has_value());
  if (!stored) return 0;
  const bool legacy = stored->is_legacy();
  std::optional<amplifier::Message> unified;
  try {
    unified = amplifier::to_unified(std::move(*stored));
  } catch (const amplifier::ModelError &) {
    FUZZ_CHECK(legacy);  // only a legacy message can fail to convert
    return 0;
  }
  check_round_trip(*unified);
  if (message && !legacy) FUZZ_CHECK(amplifier::to_json(*unified) == amplifier::to_json(*message));
  return 0;
}
