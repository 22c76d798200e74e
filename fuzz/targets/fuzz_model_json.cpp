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

// to_json(from_json(to_json(x))) == to_json(x), and the JSON text parses to the same value.
template <class T>
void check_round_trip(const T &parsed) {
  const json::value first = as_value(amplifier::to_json(parsed));
  const std::optional<T> again = parse_as<T>(first);
  FUZZ_CHECK(again.has_value());
  const json::value second = as_value(amplifier::to_json(*again));
  FUZZ_CHECK(first == second);
  FUZZ_CHECK(json::parse(json::serialize(first)) == first);
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
