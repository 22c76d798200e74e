// What the official JSON-Schema-Test-Suite (test_json_schema_suite.cpp runs its draft 7 files)
// does not cover: how a $ref's siblings depend on $schema, and the 2019-09/2020-12 names of
// draft 7's checks that the validator also accepts.
#include <amplifier/json_schema.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string_view>

namespace json = boost::json;
using amplifier::JsonSchema;

namespace {

struct Case {
  std::string_view schema;
  std::string_view instance;
  bool valid;
};

struct Group {
  std::string_view keyword;
  std::initializer_list<Case> cases;
};

// Runs every case of `groups`, naming the failing ones.
void run(std::initializer_list<Group> groups) {
  for (const auto &group : groups) {
    for (const auto &c : group.cases) {
      INFO(group.keyword << ": " << c.schema << " against " << c.instance);
      const JsonSchema schema(json::parse(c.schema));
      CHECK(schema.accepts(json::parse(c.instance)) == c.valid);
    }
  }
}

constexpr bool kValid = true;
constexpr bool kInvalid = false;

}  // namespace

TEST_CASE("draft 7: $ref inside the schema, recursive ones included") {
  constexpr std::string_view root_ref = R"({"properties":{"foo":{"$ref":"#"}},
    "additionalProperties":false})";
  constexpr std::string_view escaped = R"({
    "definitions":{"tilde~field":{"type":"integer"},"slash/field":{"type":"integer"},
                   "percent%field":{"type":"integer"}},
    "properties":{"tilde":{"$ref":"#/definitions/tilde~0field"},
                  "slash":{"$ref":"#/definitions/slash~1field"},
                  "percent":{"$ref":"#/definitions/percent%25field"}}})";
  constexpr std::string_view tree = R"({
    "definitions":{
      "node":{"type":"object","properties":{"value":{"type":"number"},
              "subtree":{"$ref":"#/definitions/tree"}},"required":["value"]},
      "tree":{"type":"object","properties":{"meta":{"type":"string"},
              "nodes":{"type":"array","items":{"$ref":"#/definitions/node"}}},
              "required":["meta","nodes"]}},
    "$ref":"#/definitions/tree"})";
  constexpr std::string_view sibling = R"({"$schema":"http://json-schema.org/draft-07/schema#",
    "definitions":{"reffed":{"type":"array"}},
    "properties":{"foo":{"$ref":"#/definitions/reffed","maxItems":2}}})";
  constexpr std::string_view sibling_unsaid = R"({"definitions":{"reffed":{"type":"array"}},
    "properties":{"foo":{"$ref":"#/definitions/reffed","maxItems":2}}})";
  constexpr std::string_view sibling_2020 = R"({
    "$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"reffed":{"type":"array"}},
    "properties":{"foo":{"$ref":"#/$defs/reffed","maxItems":2}}})";
  constexpr std::string_view by_id = R"({"$id":"http://example.com/root.json",
    "definitions":{"A":{"type":"integer"}},
    "properties":{"a":{"$ref":"http://example.com/root.json#/definitions/A"}}})";
  run({
      {"$ref",
       {{root_ref, R"({"foo":false})", kValid},
        {root_ref, R"({"foo":{"foo":false}})", kValid},
        {root_ref, R"({"bar":false})", kInvalid},
        {root_ref, R"({"foo":{"bar":false}})", kInvalid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"$ref":"#/properties/foo"}}})",
         R"({"bar":3})", kValid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"$ref":"#/properties/foo"}}})",
         R"({"bar":true})", kInvalid},
        {R"({"items":[{"type":"integer"},{"$ref":"#/items/0"}]})", "[1,2]", kValid},
        {R"({"items":[{"type":"integer"},{"$ref":"#/items/0"}]})", R"([1,"foo"])", kInvalid},
        {escaped, R"({"slash":"aoeu"})", kInvalid},
        {escaped, R"({"tilde":"aoeu"})", kInvalid},
        {escaped, R"({"percent":"aoeu"})", kInvalid},
        {escaped, R"({"slash":123})", kValid},
        {escaped, R"({"tilde":123})", kValid},
        {escaped, R"({"percent":123})", kValid},
        {R"({"definitions":{"a":{"type":"integer"},"b":{"$ref":"#/definitions/a"},
             "c":{"$ref":"#/definitions/b"}},"$ref":"#/definitions/c"})",
         "5", kValid},
        {R"({"definitions":{"a":{"type":"integer"},"b":{"$ref":"#/definitions/a"},
             "c":{"$ref":"#/definitions/b"}},"$ref":"#/definitions/c"})",
         R"("a")", kInvalid},
        {sibling, R"({"foo":[]})", kValid},
        {sibling, R"({"foo":[1,2,3]})", kValid},  // draft 7: maxItems beside $ref is ignored
        {sibling, R"({"foo":"string"})", kInvalid},
        {sibling_2020, R"({"foo":[1,2,3]})", kInvalid},    // 2020-12: it applies
        {sibling_unsaid, R"({"foo":[1,2,3]})", kInvalid},  // no $schema: as in 2020-12
        {sibling_unsaid, R"({"foo":[1,2]})", kValid},
        {R"({"$ref":"#/definitions/bool","definitions":{"bool":true}})", R"("foo")", kValid},
        {R"({"$ref":"#/definitions/bool","definitions":{"bool":false}})", R"("foo")", kInvalid},
        {R"({"$defs":{"a":{"type":"integer"}},"$ref":"#/$defs/a"})", "1", kValid},
        {R"({"$defs":{"a":{"type":"integer"}},"$ref":"#/$defs/a"})", R"("x")", kInvalid},
        {by_id, R"({"a":1})", kValid},
        {by_id, R"({"a":"x"})", kInvalid},
        {R"({"properties":{"$ref":{"type":"string"}}})", R"({"$ref":"a"})", kValid},
        {R"({"properties":{"$ref":{"type":"string"}}})", R"({"$ref":2})", kInvalid},
        {tree, R"({"meta":"root","nodes":[
           {"value":1,"subtree":{"meta":"child","nodes":[{"value":1.1},{"value":1.2}]}},
           {"value":2,"subtree":{"meta":"child","nodes":[{"value":2.1},{"value":2.2}]}}]})",
         kValid},
        {tree, R"({"meta":"root","nodes":[
           {"value":1,"subtree":{"meta":"child","nodes":[{"value":"string is invalid"}]}}]})",
         kInvalid}}},
  });
}

TEST_CASE(
    "2019-09 and 2020-12 names: prefixItems, dependentRequired, dependentSchemas, "
    "minContains, maxContains") {
  run({
      {"prefixItems",
       {{R"({"prefixItems":[{"type":"integer"}],"items":{"type":"string"}})", R"([1,"a","b"])",
         kValid},
        {R"({"prefixItems":[{"type":"integer"}],"items":{"type":"string"}})", "[1,2]", kInvalid},
        {R"({"prefixItems":[{"type":"integer"}],"items":{"type":"string"}})", R"(["a"])", kInvalid},
        {R"({"prefixItems":[{"type":"integer"}],"items":false})", "[1]", kValid},
        {R"({"prefixItems":[{"type":"integer"}],"items":false})", "[1,2]", kInvalid}}},
      {"dependentRequired, dependentSchemas",
       {{R"({"dependentRequired":{"bar":["foo"]}})", R"({"bar":1})", kInvalid},
        {R"({"dependentRequired":{"bar":["foo"]}})", R"({"foo":1,"bar":1})", kValid},
        {R"({"dependentSchemas":{"bar":{"required":["foo"]}}})", R"({"bar":1})", kInvalid},
        {R"({"dependentSchemas":{"bar":{"required":["foo"]}}})", R"({"baz":1})", kValid}}},
      {"minContains, maxContains",
       {{R"({"contains":{"const":1},"minContains":2})", "[1,1]", kValid},
        {R"({"contains":{"const":1},"minContains":2})", "[1,2]", kInvalid},
        {R"({"contains":{"const":1},"maxContains":1})", "[1,1]", kInvalid},
        {R"({"contains":{"const":1},"maxContains":1})", "[1,2]", kValid},
        {R"({"contains":{"const":1},"minContains":0})", "[]", kValid}}},
  });
}
