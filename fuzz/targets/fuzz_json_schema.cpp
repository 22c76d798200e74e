// The JSON-schema validator (kernel/model json_schema.hpp). Input: a JSON array
// [schema, instance, ...]; every later element is validated against the first.
// Invariants: compiling either succeeds or throws ModelError; validate() is deterministic,
// returns at most max_violations, and a smaller limit gives a prefix of a larger one;
// accepts() agrees with validate(); every violation's path starts at the root given;
// {"const": x} and {"enum": [x]} accept x, and so do the schemas true and {}.
#include "fuzz_support.hpp"

#include "amplifier/json_schema.hpp"
#include "amplifier/model.hpp"

#include <boost/json.hpp>

namespace json = boost::json;

namespace {

void check_instance(const amplifier::JsonSchema &schema, const json::value &instance) {
  const auto all = schema.validate(instance, "input", 16);
  FUZZ_CHECK(all.size() <= 16);
  FUZZ_CHECK(schema.validate(instance, "input", 16).size() == all.size());
  FUZZ_CHECK(schema.accepts(instance) == all.empty());
  const auto one = schema.validate(instance, "input", 1);
  FUZZ_CHECK(one.size() == std::min<std::size_t>(1, all.size()));
  if (!one.empty()) FUZZ_CHECK(one[0].message() == all[0].message());
  for (const auto &violation : all) {
    FUZZ_CHECK(violation.path.starts_with("input"));
    FUZZ_CHECK(!violation.problem.empty());
  }
  (void)amplifier::describe_violations(all);
}

void check_accepts(const json::value &schema_json, const json::value &instance) {
  const amplifier::JsonSchema schema(schema_json);
  FUZZ_CHECK(schema.accepts(instance));
  FUZZ_CHECK(schema.validate(instance).empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  json::value input;
  try {
    input = amplifier::parse_json(amp_fuzz::as_text(data, size));
  } catch (const amplifier::ModelError &) {
    return 0;
  }
  if (!input.is_array() || input.as_array().empty()) return 0;
  const json::array &items = input.as_array();

  std::optional<amplifier::JsonSchema> schema;
  try {
    schema.emplace(items[0]);
  } catch (const amplifier::ModelError &) {
  }
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (schema) check_instance(*schema, items[i]);
    check_accepts(json::value(true), items[i]);
    check_accepts(json::object{}, items[i]);
    check_accepts(json::object{{"const", items[i]}}, items[i]);
    check_accepts(json::object{{"enum", json::array{items[i]}}}, items[i]);
  }
  if (schema) check_instance(*schema, items[0]);
  return 0;
}
