// Every validation keyword of JSON Schema draft 7, case by case, after the official
// JSON-Schema-Test-Suite (tests/draft7; the suite itself is not available offline, so these are
// its cases restated, a few per keyword, plus the 2019-09/2020-12 names the validator accepts).
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

TEST_CASE("draft 7: type, enum, const") {
  run({
      {"type integer",
       {{R"({"type":"integer"})", "1", kValid},
        {R"({"type":"integer"})", "1.0", kValid},  // a float with zero fractional part
        {R"({"type":"integer"})", "1.1", kInvalid},
        {R"({"type":"integer"})", R"("foo")", kInvalid},
        {R"({"type":"integer"})", R"("1")", kInvalid},
        {R"({"type":"integer"})", "{}", kInvalid},
        {R"({"type":"integer"})", "[]", kInvalid},
        {R"({"type":"integer"})", "true", kInvalid},
        {R"({"type":"integer"})", "null", kInvalid}}},
      {"type others",
       {{R"({"type":"number"})", "1.1", kValid},
        {R"({"type":"number"})", R"("1")", kInvalid},
        {R"({"type":"string"})", R"("")", kValid},
        {R"({"type":"string"})", "1", kInvalid},
        {R"({"type":"object"})", "{}", kValid},
        {R"({"type":"object"})", "[]", kInvalid},
        {R"({"type":"array"})", "[]", kValid},
        {R"({"type":"array"})", "{}", kInvalid},
        {R"({"type":"boolean"})", "false", kValid},
        {R"({"type":"boolean"})", "0", kInvalid},
        {R"({"type":"boolean"})", R"("")", kInvalid},
        {R"({"type":"null"})", "null", kValid},
        {R"({"type":"null"})", "0", kInvalid},
        {R"({"type":"null"})", "false", kInvalid}}},
      {"type array",
       {{R"({"type":["integer","string"]})", "1", kValid},
        {R"({"type":["integer","string"]})", R"("foo")", kValid},
        {R"({"type":["integer","string"]})", "1.5", kInvalid},
        {R"({"type":["integer","string"]})", "{}", kInvalid}}},
      {"enum",
       {{R"({"enum":[1,2,3]})", "1", kValid},
        {R"({"enum":[1,2,3]})", "4", kInvalid},
        {R"({"enum":[6,"foo",[],true,{"foo":12}]})", "[]", kValid},
        {R"({"enum":[6,"foo",[],true,{"foo":12}]})", "null", kInvalid},
        {R"({"enum":[6,"foo",[],true,{"foo":12}]})", R"({"foo":false})", kInvalid},
        {R"({"enum":[6,"foo",[],true,{"foo":12}]})", R"({"foo":12})", kValid},
        {R"({"enum":[false]})", "false", kValid},
        {R"({"enum":[false]})", "0", kInvalid},
        {R"({"enum":[true]})", "1", kInvalid},
        {R"({"enum":[0]})", "false", kInvalid},
        {R"({"enum":[0]})", "0.0", kValid},
        {R"({"enum":[[false]]})", "[0]", kInvalid},
        {R"({"type":"object","properties":{"foo":{"enum":["foo"]},"bar":{"enum":["bar"]}},
            "required":["bar"]})",
         R"({"foo":"foo","bar":"bar"})", kValid},
        {R"({"type":"object","properties":{"foo":{"enum":["foo"]},"bar":{"enum":["bar"]}},
            "required":["bar"]})",
         R"({"foo":"foot","bar":"bar"})", kInvalid},
        {R"({"type":"object","properties":{"foo":{"enum":["foo"]},"bar":{"enum":["bar"]}},
            "required":["bar"]})",
         R"({"foo":"foo"})", kInvalid}}},
      {"const",
       {{R"({"const":2})", "2", kValid},
        {R"({"const":2})", "5", kInvalid},
        {R"({"const":2})", R"("a")", kInvalid},
        {R"({"const":{"foo":"bar","baz":"bax"}})", R"({"baz":"bax","foo":"bar"})", kValid},
        {R"({"const":{"foo":"bar","baz":"bax"}})", R"({"foo":"bar"})", kInvalid},
        {R"({"const":{"foo":"bar","baz":"bax"}})", "[1,2]", kInvalid},
        {R"({"const":[{"foo":"bar"}]})", R"([{"foo":"bar"}])", kValid},
        {R"({"const":[{"foo":"bar"}]})", "[2]", kInvalid},
        {R"({"const":null})", "null", kValid},
        {R"({"const":null})", "0", kInvalid},
        {R"({"const":false})", "false", kValid},
        {R"({"const":false})", "0", kInvalid},
        {R"({"const":1})", "1.0", kValid},
        {R"({"const":-2.0})", "-2", kValid},
        {R"({"const":{"a":false}})", R"({"a":0})", kInvalid}}},
  });
}

TEST_CASE("draft 7: properties, patternProperties, additionalProperties, required") {
  constexpr std::string_view mixed = R"({
    "properties":{"foo":{"type":"array","maxItems":3},"bar":{"type":"array"}},
    "patternProperties":{"f.o":{"minItems":2}},
    "additionalProperties":{"type":"integer"}})";
  constexpr std::string_view closed = R"({
    "properties":{"foo":{},"bar":{}},"patternProperties":{"^v":{}},"additionalProperties":false})";
  run({
      {"properties",
       {{R"({"properties":{"foo":{"type":"integer"},"bar":{"type":"string"}}})",
         R"({"foo":1,"bar":"baz"})", kValid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"type":"string"}}})",
         R"({"foo":1,"bar":{}})", kInvalid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"type":"string"}}})",
         R"({"foo":[],"bar":{}})", kInvalid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"type":"string"}}})", R"({"quux":[]})",
         kValid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"type":"string"}}})", "[]", kValid},
        {R"({"properties":{"foo":{"type":"integer"},"bar":{"type":"string"}}})", "12", kValid},
        {mixed, R"({"foo":[1,2]})", kValid},
        {mixed, R"({"foo":[1,2,3,4]})", kInvalid},
        {mixed, R"({"foo":[]})", kInvalid},
        {mixed, R"({"fxo":[1,2]})", kValid},
        {mixed, R"({"fxo":[]})", kInvalid},
        {mixed, R"({"bar":[]})", kValid},
        {mixed, R"({"quux":3})", kValid},
        {mixed, R"({"quux":"foo"})", kInvalid},
        {R"({"properties":{"foo":true,"bar":false}})", "{}", kValid},
        {R"({"properties":{"foo":true,"bar":false}})", R"({"foo":1})", kValid},
        {R"({"properties":{"foo":true,"bar":false}})", R"({"bar":2})", kInvalid},
        {R"({"properties":{"foo\nbar":{"type":"number"}}})", R"({"foo\nbar":"1"})", kInvalid},
        {R"({"properties":{"foo\nbar":{"type":"number"}}})", R"({"foo\nbar":1})", kValid}}},
      {"patternProperties",
       {{R"({"patternProperties":{"f.*o":{"type":"integer"}}})", R"({"foo":1})", kValid},
        {R"({"patternProperties":{"f.*o":{"type":"integer"}}})", R"({"foo":1,"foooooo":2})",
         kValid},
        {R"({"patternProperties":{"f.*o":{"type":"integer"}}})", R"({"foo":"bar","fooooo":2})",
         kInvalid},
        {R"({"patternProperties":{"f.*o":{"type":"integer"}}})", R"({"foo":"bar","foooooo":"baz"})",
         kInvalid},
        {R"({"patternProperties":{"f.*o":{"type":"integer"}}})", R"(["foo"])", kValid},
        {R"({"patternProperties":{"a*":{"type":"integer"},"aaa*":{"maximum":20}}})", R"({"a":21})",
         kValid},
        {R"({"patternProperties":{"a*":{"type":"integer"},"aaa*":{"maximum":20}}})",
         R"({"aaaa":18})", kValid},
        {R"({"patternProperties":{"a*":{"type":"integer"},"aaa*":{"maximum":20}}})",
         R"({"a":21,"aaaa":31})", kInvalid},
        {R"({"patternProperties":{"a*":{"type":"integer"},"aaa*":{"maximum":20}}})",
         R"({"aaa":"foo","aaaa":31})", kInvalid},
        // Patterns are not anchored.
        {R"({"patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}})",
         R"({"answer 1":"42"})", kValid},
        {R"({"patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}})",
         R"({"a31b":null})", kInvalid},
        {R"({"patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}})",
         R"({"a_x_3":3})", kValid},
        {R"({"patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}})",
         R"({"a_X_3":3})", kInvalid},
        {R"({"patternProperties":{"f.*":true,"b.*":false}})", R"({"foo":1})", kValid},
        {R"({"patternProperties":{"f.*":true,"b.*":false}})", R"({"bar":2})", kInvalid},
        {R"({"patternProperties":{"f.*":true,"b.*":false}})", "{}", kValid}}},
      {"additionalProperties",
       {{closed, R"({"foo":1})", kValid},
        {closed, R"({"foo":1,"bar":2,"quux":"boom"})", kInvalid},
        {closed, "[1,2,3]", kValid},
        {closed, R"("foobarbaz")", kValid},
        {closed, R"({"foo":1,"vroom":2})", kValid},
        {R"({"properties":{"foo":{},"bar":{}},"additionalProperties":{"type":"boolean"}})",
         R"({"foo":1,"bar":2,"quux":true})", kValid},
        {R"({"properties":{"foo":{},"bar":{}},"additionalProperties":{"type":"boolean"}})",
         R"({"foo":1,"bar":2,"quux":12})", kInvalid},
        {R"({"additionalProperties":{"type":"boolean"}})", R"({"foo":true})", kValid},
        {R"({"additionalProperties":{"type":"boolean"}})", R"({"foo":1})", kInvalid},
        {R"({"properties":{"foo":{},"bar":{}}})", R"({"foo":1,"bar":2,"quux":true})", kValid},
        // additionalProperties does not see the properties of an allOf.
        {R"({"allOf":[{"properties":{"foo":{}}}],"additionalProperties":{"type":"boolean"}})",
         R"({"foo":1,"bar":true})", kInvalid}}},
      {"required",
       {{R"({"properties":{"foo":{},"bar":{}},"required":["foo"]})", R"({"foo":1})", kValid},
        {R"({"properties":{"foo":{},"bar":{}},"required":["foo"]})", R"({"bar":1})", kInvalid},
        {R"({"properties":{"foo":{},"bar":{}},"required":["foo"]})", "[]", kValid},
        {R"({"properties":{"foo":{},"bar":{}},"required":["foo"]})", R"("")", kValid},
        {R"({"properties":{"foo":{},"bar":{}},"required":["foo"]})", "12", kValid},
        {R"({"properties":{"foo":{}}})", "{}", kValid},
        {R"({"required":[]})", "{}", kValid}}},
  });
}

TEST_CASE("draft 7: propertyNames, dependencies, minProperties, maxProperties") {
  run({
      {"propertyNames",
       {{R"({"propertyNames":{"maxLength":3}})", R"({"f":{},"foo":{}})", kValid},
        {R"({"propertyNames":{"maxLength":3}})", R"({"foo":{},"foobar":{}})", kInvalid},
        {R"({"propertyNames":{"maxLength":3}})", "{}", kValid},
        {R"({"propertyNames":{"maxLength":3}})", "[1,2,3,4]", kValid},
        {R"({"propertyNames":{"maxLength":3}})", R"("foobar")", kValid},
        {R"({"propertyNames":{"pattern":"^a+$"}})", R"({"a":{},"aa":{}})", kValid},
        {R"({"propertyNames":{"pattern":"^a+$"}})", R"({"aaA":{}})", kInvalid},
        {R"({"propertyNames":true})", R"({"foo":1})", kValid},
        {R"({"propertyNames":false})", R"({"foo":1})", kInvalid},
        {R"({"propertyNames":false})", "{}", kValid}}},
      {"dependencies",
       {{R"({"dependencies":{"bar":["foo"]}})", "{}", kValid},
        {R"({"dependencies":{"bar":["foo"]}})", R"({"foo":1})", kValid},
        {R"({"dependencies":{"bar":["foo"]}})", R"({"foo":1,"bar":2})", kValid},
        {R"({"dependencies":{"bar":["foo"]}})", R"({"bar":2})", kInvalid},
        {R"({"dependencies":{"bar":["foo"]}})", R"(["bar"])", kValid},
        {R"({"dependencies":{"bar":[]}})", R"({"bar":2})", kValid},
        {R"({"dependencies":{"quux":["foo","bar"]}})", R"({"foo":1,"quux":2})", kInvalid},
        {R"({"dependencies":{"quux":["foo","bar"]}})", R"({"foo":1,"bar":2,"quux":3})", kValid},
        {R"({"dependencies":{"bar":{"properties":{"foo":{"type":"integer"},"bar":{"type":"integer"}}}}})",
         R"({"foo":1,"bar":2})", kValid},
        {R"({"dependencies":{"bar":{"properties":{"foo":{"type":"integer"},"bar":{"type":"integer"}}}}})",
         R"({"foo":"quux"})", kValid},
        {R"({"dependencies":{"bar":{"properties":{"foo":{"type":"integer"},"bar":{"type":"integer"}}}}})",
         R"({"foo":"quux","bar":2})", kInvalid},
        {R"({"dependencies":{"bar":{"properties":{"foo":{"type":"integer"},"bar":{"type":"integer"}}}}})",
         R"({"foo":2,"bar":"quux"})", kInvalid},
        {R"({"dependencies":{"foo":true,"bar":false}})", R"({"foo":1})", kValid},
        {R"({"dependencies":{"foo":true,"bar":false}})", R"({"bar":2})", kInvalid},
        {R"({"dependencies":{"foo":true,"bar":false}})", "{}", kValid}}},
      {"minProperties, maxProperties",
       {{R"({"maxProperties":2})", R"({"foo":1})", kValid},
        {R"({"maxProperties":2})", R"({"foo":1,"bar":2,"baz":3})", kInvalid},
        {R"({"maxProperties":2})", "[1,2,3]", kValid},
        {R"({"maxProperties":2})", R"("foobar")", kValid},
        {R"({"minProperties":1})", "{}", kInvalid},
        {R"({"minProperties":1})", R"({"foo":1})", kValid},
        {R"({"minProperties":1})", "[]", kValid}}},
  });
}

TEST_CASE("draft 7: items, additionalItems, contains, uniqueItems, minItems, maxItems") {
  constexpr std::string_view nested = R"({"type":"array","items":{"type":"array","items":{
    "type":"array","items":{"type":"number"}}}})";
  run({
      {"items",
       {{R"({"items":{"type":"integer"}})", "[1,2,3]", kValid},
        {R"({"items":{"type":"integer"}})", R"([1,"x"])", kInvalid},
        {R"({"items":{"type":"integer"}})", R"({"foo":"bar"})", kValid},
        {R"({"items":true})", R"([1,"foo",true])", kValid},
        {R"({"items":false})", "[1]", kInvalid},
        {R"({"items":false})", "[]", kValid},
        {R"({"items":[{"type":"integer"},{"type":"string"}]})", R"([1,"foo"])", kValid},
        {R"({"items":[{"type":"integer"},{"type":"string"}]})", R"(["foo",1])", kInvalid},
        {R"({"items":[{"type":"integer"},{"type":"string"}]})", "[1]", kValid},
        {R"({"items":[{"type":"integer"},{"type":"string"}]})", R"([1,"foo",true])", kValid},
        {R"({"items":[{"type":"integer"},{"type":"string"}]})", "[]", kValid},
        {R"({"items":[true,false]})", "[1]", kValid},
        {R"({"items":[true,false]})", R"([1,"foo"])", kInvalid},
        {nested, "[[[1]],[[2],[3]]]", kValid},
        {nested, R"([[["1"]]])", kInvalid}}},
      {"additionalItems",
       {{R"({"items":[{}],"additionalItems":{"type":"integer"}})", "[null,2,3,4]", kValid},
        {R"({"items":[{}],"additionalItems":{"type":"integer"}})", R"([null,2,3,"foo"])", kInvalid},
        {R"({"items":{},"additionalItems":false})", "[1,2,3,4,5]", kValid},  // ignored
        {R"({"items":[{},{},{}],"additionalItems":false})", "[1,2,3]", kValid},
        {R"({"items":[{},{},{}],"additionalItems":false})", "[1,2,3,4]", kInvalid},
        {R"({"items":[{},{},{}],"additionalItems":false})", "[]", kValid},
        {R"({"items":[{},{},{}],"additionalItems":false})", "[1,2]", kValid},
        {R"({"additionalItems":false})", "[1,2,3]", kValid},  // no items: ignored
        {R"({"items":[{"type":"integer"}]})", R"([1,"foo",false])", kValid}}},
      {"contains",
       {{R"({"contains":{"minimum":5}})", "[3,4,5]", kValid},
        {R"({"contains":{"minimum":5}})", "[2,3,4]", kInvalid},
        {R"({"contains":{"minimum":5}})", "[]", kInvalid},
        {R"({"contains":{"minimum":5}})", "{}", kValid},
        {R"({"contains":{"const":5}})", "[3,4,5]", kValid},
        {R"({"contains":{"const":5}})", "[1,2,3]", kInvalid},
        {R"({"contains":true})", R"(["foo"])", kValid},
        {R"({"contains":true})", "[]", kInvalid},
        {R"({"contains":false})", R"(["foo"])", kInvalid},
        {R"({"contains":false})", R"("foo")", kValid},
        {R"({"items":{"multipleOf":2},"contains":{"multipleOf":3}})", "[2,4,8]", kInvalid},
        {R"({"items":{"multipleOf":2},"contains":{"multipleOf":3}})", "[3,6,9]", kInvalid},
        {R"({"items":{"multipleOf":2},"contains":{"multipleOf":3}})", "[6,12]", kValid},
        {R"({"items":{"multipleOf":2},"contains":{"multipleOf":3}})", "[1,5]", kInvalid}}},
      {"uniqueItems",
       {{R"({"uniqueItems":true})", "[1,2]", kValid},
        {R"({"uniqueItems":true})", "[1,1]", kInvalid},
        {R"({"uniqueItems":true})", "[1.0,1.00,1]", kInvalid},
        {R"({"uniqueItems":true})", R"(["foo","bar","foo"])", kInvalid},
        {R"({"uniqueItems":true})", R"([{"foo":"bar"},{"foo":"baz"}])", kValid},
        {R"({"uniqueItems":true})", R"([{"foo":"bar"},{"foo":"bar"}])", kInvalid},
        {R"({"uniqueItems":true})",
         R"([{"foo":{"bar":{"baz":true}}},{"foo":{"bar":{"baz":false}}}])", kValid},
        {R"({"uniqueItems":true})", R"([["foo"],["foo"]])", kInvalid},
        {R"({"uniqueItems":true})", R"([["foo"],["bar"]])", kValid},
        {R"({"uniqueItems":true})", "[1,true]", kValid},
        {R"({"uniqueItems":true})", "[0,false]", kValid},
        {R"({"uniqueItems":true})", "[[1],[true]]", kValid},
        {R"({"uniqueItems":true})", R"([{},[1],true,null,1,"{}"])", kValid},
        {R"({"uniqueItems":true})", R"([{},[1],true,null,{},1])", kInvalid},
        {R"({"uniqueItems":true})", R"([{"a":1,"b":2},{"b":2,"a":1}])", kInvalid},
        {R"({"uniqueItems":true})", R"([{"a":false},{"a":0}])", kValid},
        {R"({"uniqueItems":false})", "[1,1]", kValid},
        {R"({"items":[{"type":"boolean"},{"type":"boolean"}],"uniqueItems":true})", "[false,true]",
         kValid},
        {R"({"items":[{"type":"boolean"},{"type":"boolean"}],"uniqueItems":true})", "[false,false]",
         kInvalid},
        {R"({"items":[{"type":"boolean"},{"type":"boolean"}],"uniqueItems":true})",
         R"([false,true,"foo","foo"])", kInvalid}}},
      {"minItems, maxItems",
       {{R"({"maxItems":2})", "[1]", kValid},
        {R"({"maxItems":2})", "[1,2,3]", kInvalid},
        {R"({"maxItems":2})", R"("foobar")", kValid},
        {R"({"maxItems":2.0})", "[1,2,3]", kInvalid},
        {R"({"minItems":1})", "[1]", kValid},
        {R"({"minItems":1})", "[]", kInvalid}}},
  });
}

TEST_CASE("draft 7: numbers and strings") {
  run({
      {"minimum, maximum, exclusiveMinimum, exclusiveMaximum",
       {{R"({"maximum":3.0})", "2.6", kValid},
        {R"({"maximum":3.0})", "3.0", kValid},
        {R"({"maximum":3.0})", "3.5", kInvalid},
        {R"({"maximum":3.0})", R"("x")", kValid},
        {R"({"maximum":300})", "300.00", kValid},
        {R"({"maximum":300})", "300.5", kInvalid},
        {R"({"minimum":1.1})", "0.6", kInvalid},
        {R"({"minimum":1.1})", "1.1", kValid},
        {R"({"minimum":-2})", "-2", kValid},
        {R"({"minimum":-2})", "-3", kInvalid},
        {R"({"exclusiveMaximum":3.0})", "2.2", kValid},
        {R"({"exclusiveMaximum":3.0})", "3.0", kInvalid},
        {R"({"exclusiveMinimum":1.1})", "1.2", kValid},
        {R"({"exclusiveMinimum":1.1})", "1.1", kInvalid}}},
      {"multipleOf",
       {{R"({"multipleOf":2})", "10", kValid},
        {R"({"multipleOf":2})", "7", kInvalid},
        {R"({"multipleOf":2})", "4.5", kInvalid},
        {R"({"multipleOf":2})", R"("foo")", kValid},
        {R"({"multipleOf":2})", "-9223372036854775808", kValid},
        {R"({"multipleOf":1.5})", "0", kValid},
        {R"({"multipleOf":1.5})", "4.5", kValid},
        {R"({"multipleOf":1.5})", "35", kInvalid},
        {R"({"multipleOf":0.0001})", "0.0075", kValid},
        {R"({"multipleOf":0.0001})", "0.00751", kInvalid},
        {R"({"multipleOf":0.1})", "0.3", kValid},
        {R"({"type":"integer","multipleOf":0.123456789})", "1e308", kInvalid},  // overflows to inf
        {R"({"type":"integer","multipleOf":1e-8})", "12391239123", kValid}}},
      {"minLength, maxLength",
       {{R"({"maxLength":2})", R"("f")", kValid},
        {R"({"maxLength":2})", R"("foo")", kInvalid},
        {R"({"maxLength":2})", "100", kValid},
        {R"({"maxLength":2})", R"("💩💩")", kValid},  // two code points
        {R"({"minLength":2})", R"("f")", kInvalid},
        {R"({"minLength":2})", R"("💩")", kInvalid},
        {R"({"minLength":2})", "1", kValid}}},
      {"pattern",
       {{R"({"pattern":"^a*$"})", R"("aaa")", kValid},
        {R"({"pattern":"^a*$"})", R"("abc")", kInvalid},
        {R"({"pattern":"^a*$"})", "true", kValid},
        {R"({"pattern":"a+"})", R"("xxaayy")", kValid}}},
  });
}

TEST_CASE("draft 7: allOf, anyOf, oneOf, not, if/then/else") {
  constexpr std::string_view both = R"({"allOf":[
    {"properties":{"bar":{"type":"integer"}},"required":["bar"]},
    {"properties":{"foo":{"type":"string"}},"required":["foo"]}]})";
  constexpr std::string_view with_base = R"({"properties":{"bar":{"type":"integer"}},
    "required":["bar"],"allOf":[{"properties":{"foo":{"type":"string"}},"required":["foo"]},
    {"properties":{"baz":{"type":"null"}},"required":["baz"]}]})";
  constexpr std::string_view either = R"({"anyOf":[
    {"properties":{"bar":{"type":"integer"}},"required":["bar"]},
    {"properties":{"foo":{"type":"string"}},"required":["foo"]}]})";
  constexpr std::string_view exactly_one = R"({"type":"object","oneOf":[
    {"required":["foo","bar"]},{"required":["foo","baz"]}]})";
  constexpr std::string_view branches = R"({"if":{"exclusiveMaximum":0},"then":{"minimum":-10},
    "else":{"multipleOf":2}})";
  run({
      {"allOf",
       {{both, R"({"foo":"baz","bar":2})", kValid},
        {both, R"({"foo":"baz"})", kInvalid},
        {both, R"({"bar":2})", kInvalid},
        {both, R"({"foo":"baz","bar":"quux"})", kInvalid},
        {with_base, R"({"foo":"quux","bar":2,"baz":null})", kValid},
        {with_base, R"({"foo":"quux","baz":null})", kInvalid},
        {with_base, R"({"bar":2,"baz":null})", kInvalid},
        {R"({"allOf":[{"maximum":30},{"minimum":20}]})", "25", kValid},
        {R"({"allOf":[{"maximum":30},{"minimum":20}]})", "35", kInvalid},
        {R"({"allOf":[true,true]})", R"("foo")", kValid},
        {R"({"allOf":[true,false]})", R"("foo")", kInvalid},
        {R"({"allOf":[{}]})", "1", kValid}}},
      {"anyOf",
       {{R"({"anyOf":[{"type":"integer"},{"minimum":2}]})", "1", kValid},
        {R"({"anyOf":[{"type":"integer"},{"minimum":2}]})", "2.5", kValid},
        {R"({"anyOf":[{"type":"integer"},{"minimum":2}]})", "3", kValid},
        {R"({"anyOf":[{"type":"integer"},{"minimum":2}]})", "1.5", kInvalid},
        {R"({"type":"string","anyOf":[{"maxLength":2},{"minLength":4}]})", "3", kInvalid},
        {R"({"type":"string","anyOf":[{"maxLength":2},{"minLength":4}]})", R"("foobar")", kValid},
        {R"({"type":"string","anyOf":[{"maxLength":2},{"minLength":4}]})", R"("foo")", kInvalid},
        {R"({"anyOf":[true,true]})", R"("foo")", kValid},
        {R"({"anyOf":[true,false]})", R"("foo")", kValid},
        {R"({"anyOf":[false,false]})", R"("foo")", kInvalid},
        {either, R"({"bar":2})", kValid},
        {either, R"({"foo":"baz"})", kValid},
        {either, R"({"foo":"baz","bar":2})", kValid},
        {either, R"({"foo":2,"bar":"quux"})", kInvalid},
        {R"({"anyOf":[{"anyOf":[{"type":"null"}]}]})", "null", kValid},
        {R"({"anyOf":[{"anyOf":[{"type":"null"}]}]})", "123", kInvalid}}},
      {"oneOf",
       {{R"({"oneOf":[{"type":"integer"},{"minimum":2}]})", "1", kValid},
        {R"({"oneOf":[{"type":"integer"},{"minimum":2}]})", "2.5", kValid},
        {R"({"oneOf":[{"type":"integer"},{"minimum":2}]})", "3", kInvalid},
        {R"({"oneOf":[{"type":"integer"},{"minimum":2}]})", "1.5", kInvalid},
        {R"({"type":"string","oneOf":[{"minLength":2},{"maxLength":4}]})", "3", kInvalid},
        {R"({"type":"string","oneOf":[{"minLength":2},{"maxLength":4}]})", R"("foo")", kInvalid},
        {R"({"type":"string","oneOf":[{"minLength":2},{"maxLength":4}]})", R"("foobar")", kValid},
        {R"({"oneOf":[true,true,true]})", R"("foo")", kInvalid},
        {R"({"oneOf":[true,false,false]})", R"("foo")", kValid},
        {R"({"oneOf":[true,true,false]})", R"("foo")", kInvalid},
        {R"({"oneOf":[false,false,false]})", R"("foo")", kInvalid},
        {exactly_one, R"({"bar":2})", kInvalid},
        {exactly_one, R"({"foo":1,"bar":2})", kValid},
        {exactly_one, R"({"foo":1,"baz":3})", kValid},
        {exactly_one, R"({"foo":1,"bar":2,"baz":3})", kInvalid}}},
      {"not",
       {{R"({"not":{"type":"integer"}})", R"("foo")", kValid},
        {R"({"not":{"type":"integer"}})", "1", kInvalid},
        {R"({"not":{"type":["integer","boolean"]}})", R"("foo")", kValid},
        {R"({"not":{"type":["integer","boolean"]}})", "1", kInvalid},
        {R"({"not":{"type":["integer","boolean"]}})", "true", kInvalid},
        {R"({"not":{"type":"object","properties":{"foo":{"type":"string"}}}})", "1", kValid},
        {R"({"not":{"type":"object","properties":{"foo":{"type":"string"}}}})", R"({"foo":1})",
         kValid},
        {R"({"not":{"type":"object","properties":{"foo":{"type":"string"}}}})", R"({"foo":"bar"})",
         kInvalid},
        {R"({"properties":{"foo":{"not":{}}}})", R"({"foo":1,"bar":2})", kInvalid},
        {R"({"properties":{"foo":{"not":{}}}})", R"({"bar":1})", kValid},
        {R"({"not":true})", R"("foo")", kInvalid},
        {R"({"not":false})", R"("foo")", kValid}}},
      {"if/then/else",
       {{R"({"if":{"const":0}})", "0", kValid},
        {R"({"if":{"const":0}})", R"("hello")", kValid},
        {R"({"then":{"const":0}})", R"("x")", kValid},  // then and else without if: ignored
        {R"({"else":{"const":0}})", R"("x")", kValid},
        {R"({"if":{"exclusiveMaximum":0},"then":{"minimum":-10}})", "-1", kValid},
        {R"({"if":{"exclusiveMaximum":0},"then":{"minimum":-10}})", "-100", kInvalid},
        {R"({"if":{"exclusiveMaximum":0},"then":{"minimum":-10}})", "3", kValid},
        {R"({"if":{"exclusiveMaximum":0},"else":{"multipleOf":2}})", "-1", kValid},
        {R"({"if":{"exclusiveMaximum":0},"else":{"multipleOf":2}})", "4", kValid},
        {R"({"if":{"exclusiveMaximum":0},"else":{"multipleOf":2}})", "3", kInvalid},
        {branches, "-1", kValid},
        {branches, "-100", kInvalid},
        {branches, "4", kValid},
        {branches, "3", kInvalid},
        // if, then and else in different allOf entries do not interact.
        {R"({"allOf":[{"if":{"exclusiveMaximum":0}},{"then":{"minimum":-10}},{"else":{"multipleOf":2}}]})",
         "-100", kValid},
        {R"({"allOf":[{"if":{"exclusiveMaximum":0}},{"then":{"minimum":-10}},{"else":{"multipleOf":2}}]})",
         "3", kValid},
        {R"({"if":true,"then":{"const":"then"},"else":{"const":"else"}})", R"("then")", kValid},
        {R"({"if":true,"then":{"const":"then"},"else":{"const":"else"}})", R"("else")", kInvalid},
        {R"({"if":false,"then":{"const":"then"},"else":{"const":"else"}})", R"("then")", kInvalid},
        {R"({"if":false,"then":{"const":"then"},"else":{"const":"else"}})", R"("else")", kValid}}},
  });
}

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
