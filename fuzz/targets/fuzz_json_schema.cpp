// The JSON-schema validator (kernel/model json_schema.hpp). Input: a JSON array
// [schema, instance, ...]; every later element is validated against the first.
// Invariants: compiling either succeeds or throws ModelError (a $ref loop, a remote $ref, a
// malformed keyword), never crashes, overflows the stack or hangs; validate() is
// deterministic, returns at most max_violations, and a smaller limit gives a prefix of a larger
// one; accepts() agrees with validate(); every violation's path starts at the root given;
// {"const": x} and {"enum": [x]} accept x and x with its object keys reordered, {"uniqueItems":
// true} rejects [x, x reordered]; the schemas true and {} accept everything.
// For a schema S without $ref (wrapping S would move what its references point to) and a
// check that finished within the validator's limits: {"allOf": [S]} reports exactly S's
// violations, and {"anyOf": [S, false]}, {"oneOf": [S, false]}, {"if": S, "then": true,
// "else": false} accept what S accepts, {"not": S} what S rejects.
#include "fuzz_support.hpp"

#include "amplifier/json_schema.hpp"
#include "amplifier/model.hpp"

#include <boost/json.hpp>

#include <optional>

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

// `v` with the keys of every object in reverse order: the same value to JSON Schema.
json::value reordered(const json::value &v) {
  if (const json::array *a = v.if_array()) {
    json::array out;
    for (const auto &item : *a) out.push_back(reordered(item));
    return out;
  }
  const json::object *o = v.if_object();
  if (!o) return v;
  json::object out;
  for (auto it = o->end(); it != o->begin();) {
    --it;
    out[it->key()] = reordered(it->value());
  }
  return out;
}

bool mentions_ref(const json::value &schema) {
  return json::serialize(schema).find("$ref") != std::string::npos;
}

// Whether validation gave up (too many steps, too deep): a wrapped schema takes a few more
// steps, so near the limits the two may differ.
bool gave_up(const std::vector<amplifier::SchemaViolation> &violations) {
  for (const auto &v : violations)
    if (v.problem.starts_with("could not be checked: ")) return true;
  return false;
}

std::optional<amplifier::JsonSchema> compiled(const json::value &schema) {
  try {
    return amplifier::JsonSchema(schema);
  } catch (const amplifier::ModelError &) {
    return std::nullopt;
  }
}

void check_applicators(const json::value &schema_json, const amplifier::JsonSchema &schema,
                       const json::value &instance) {
  const auto own = schema.validate(instance, "input", 16);
  if (gave_up(own)) return;
  const bool accepted = own.empty();
  const auto all_of = compiled(json::object{{"allOf", json::array{schema_json}}});
  FUZZ_CHECK(all_of);
  const auto wrapped = all_of->validate(instance, "input", 16);
  if (gave_up(wrapped)) return;
  FUZZ_CHECK(amplifier::describe_violations(wrapped) == amplifier::describe_violations(own));
  const json::value equivalents[] = {
      json::object{{"anyOf", json::array{schema_json, false}}},
      json::object{{"oneOf", json::array{schema_json, false}}},
      json::object{{"if", schema_json}, {"then", true}, {"else", false}},
  };
  for (const auto &equivalent : equivalents) {
    const auto result = compiled(equivalent)->validate(instance, "input", 1);
    if (!gave_up(result)) FUZZ_CHECK(result.empty() == accepted);
  }
  const auto negated = compiled(json::object{{"not", schema_json}})->validate(instance, "input", 1);
  if (!gave_up(negated)) FUZZ_CHECK(negated.empty() == !accepted);
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

  const std::optional<amplifier::JsonSchema> schema = compiled(items[0]);
  const bool wrappable = schema && !mentions_ref(items[0]);
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (schema) check_instance(*schema, items[i]);
    if (wrappable) check_applicators(items[0], *schema, items[i]);
    const json::value same = reordered(items[i]);
    check_accepts(json::value(true), items[i]);
    check_accepts(json::object{}, items[i]);
    check_accepts(json::object{{"const", items[i]}}, items[i]);
    check_accepts(json::object{{"const", items[i]}}, same);
    check_accepts(json::object{{"enum", json::array{items[i]}}}, items[i]);
    FUZZ_CHECK(!amplifier::JsonSchema(json::object{{"uniqueItems", true}})
                    .accepts(json::array{items[i], same}));
  }
  if (schema) check_instance(*schema, items[0]);
  return 0;
}
