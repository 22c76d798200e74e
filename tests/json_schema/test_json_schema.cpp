// The JSON Schema subset tools use: each keyword accepting what it should and rejecting what
// it should, with messages the model can act on.
#include <amplifier/json_schema.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

namespace json = boost::json;
using amplifier::JsonSchema;

namespace {

// The messages of validating `instance` (JSON text) against `schema` (JSON text).
std::vector<std::string> problems(std::string_view schema, std::string_view instance) {
  std::vector<std::string> out;
  for (const auto &v : JsonSchema(json::parse(schema)).validate(json::parse(instance)))
    out.push_back(v.message());
  return out;
}

std::string only_problem(std::string_view schema, std::string_view instance) {
  auto found = problems(schema, instance);
  REQUIRE_MESSAGE(found.size() == 1, "problems: " << found.size());
  return found[0];
}

// read_file's parameters, as tool-filesystem publishes them.
constexpr std::string_view kReadFile = R"({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read"},
    "offset": {"type": "integer", "minimum": 1},
    "limit": {"type": "integer", "minimum": 1}
  },
  "required": ["path"],
  "additionalProperties": false
})";

}  // namespace

TEST_CASE("a valid tool input has no violations") {
  CHECK(problems(kReadFile, R"({"path":"a.txt"})").empty());
  CHECK(problems(kReadFile, R"({"path":"a.txt","offset":3,"limit":10})").empty());
  CHECK(problems(kReadFile, R"({"path":"a.txt","offset":3.0})").empty());  // 3.0 is an integer
  CHECK(JsonSchema(json::parse(kReadFile)).accepts(json::parse(R"({"path":""})")));
}

TEST_CASE("type errors name the path, the expected and the actual type") {
  CHECK(only_problem(kReadFile, R"({"path":5})") == "input.path: expected string, got number");
  CHECK(only_problem(kReadFile, R"({"path":"a","offset":2.5})") ==
        "input.offset: expected integer, got number");
  CHECK(only_problem(kReadFile, R"({"path":null})") == "input.path: expected string, got null");
  CHECK(only_problem(kReadFile, R"([1,2])") == "input: expected object, got array");
  CHECK(only_problem(R"({"type":["string","null"]})", "7") ==
        "input: expected string or null, got number");
  CHECK(only_problem(R"({"type":["string","integer","boolean"]})", "{}") ==
        "input: expected string, integer or boolean, got object");
  CHECK(problems(R"({"type":["string","null"]})", "null").empty());
  CHECK(problems(R"({"type":"number"})", "7").empty());
  CHECK(problems(R"({"type":"number"})", "-0.5").empty());
  CHECK(only_problem(R"({"type":"boolean"})", R"("true")") == "input: expected boolean, got string");
}

TEST_CASE("required and additionalProperties report at the object's path") {
  CHECK(only_problem(kReadFile, "{}") == "input: missing required property 'path'");
  CHECK(only_problem(kReadFile, R"({"path":"a","lines":3})") ==
        "input: unexpected property 'lines' (allowed: path, offset, limit)");
  CHECK(only_problem(R"({"type":"object","additionalProperties":false})", R"({"x":1})") ==
        "input: unexpected property 'x' (no properties are allowed)");
  // Without additionalProperties, unknown properties are fine.
  CHECK(problems(R"({"type":"object","properties":{"a":{"type":"string"}}})", R"({"b":1})").empty());
  // additionalProperties as a schema checks the extra properties.
  CHECK(only_problem(R"({"type":"object","additionalProperties":{"type":"string"}})",
                     R"({"env":"x","n":1})") == "input.n: expected string, got number");
}

TEST_CASE("every violation is reported, in document order, up to the limit") {
  const auto found = problems(kReadFile, R"({"offset":0,"limit":"3","extra":true})");
  REQUIRE(found.size() == 4);
  CHECK(found[0] == "input: missing required property 'path'");
  CHECK(found[1] == "input.offset: must be at least 1, got 0");
  CHECK(found[2] == "input.limit: expected integer, got string");
  CHECK(found[3].starts_with("input: unexpected property 'extra'"));

  const JsonSchema schema(json::parse(kReadFile));
  CHECK(schema.validate(json::parse(R"({"offset":0,"limit":"3"})"), "input", 1).size() == 1);
  CHECK(amplifier::describe_violations(schema.validate(json::parse(R"({"offset":0})"))) ==
        "input: missing required property 'path'; input.offset: must be at least 1, got 0");
  CHECK(amplifier::describe_violations({}).empty());
}

TEST_CASE("nested objects and arrays build paths with dots and indexes") {
  constexpr std::string_view schema = R"({
    "type":"object",
    "properties":{
      "edits":{"type":"array","items":{
        "type":"object",
        "properties":{"old":{"type":"string"},"new":{"type":"string"}},
        "required":["old","new"]}},
      "odd key":{"type":"integer"}
    }})";
  CHECK(only_problem(schema, R"({"edits":[{"old":"a","new":"b"},{"old":"a","new":3}]})") ==
        "input.edits[1].new: expected string, got number");
  CHECK(only_problem(schema, R"({"edits":[{"old":"a"}]})") ==
        "input.edits[0]: missing required property 'new'");
  CHECK(only_problem(schema, R"({"odd key":"x"})") == R"(input["odd key"]: expected integer, got string)");
  const auto violations = JsonSchema(json::parse(schema)).validate(json::parse(R"({"edits":[1]})"), "args");
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].path == "args.edits[0]");
  CHECK(violations[0].problem == "expected object, got number");
}

TEST_CASE("enum and const compare JSON values, numbers by value") {
  constexpr std::string_view mode = R"({"enum":["read","write",3]})";
  CHECK(problems(mode, R"("write")").empty());
  CHECK(problems(mode, "3.0").empty());
  CHECK(only_problem(mode, R"("append")") == R"(input: must be one of "read", "write", 3, got "append")");
  CHECK(problems(R"({"const":{"a":[1,2]}})", R"({"a":[1,2.0]})").empty());
  CHECK(only_problem(R"({"const":"x"})", R"("y")") == R"(input: must be "x", got "y")");
  // Boost.JSON 1.81 reads 0e400 as NaN; the value still equals itself (found by fuzzing).
  CHECK(problems(R"({"const":0e400})", "0e400").empty());
  CHECK(problems(R"({"enum":[1,-0e999]})", "0e400").empty());
  CHECK(!problems(R"({"uniqueItems":true})", "[0e400,-0e999]").empty());
}

TEST_CASE("numeric bounds, inclusive and exclusive, in both drafts' forms") {
  constexpr std::string_view range = R"({"type":"number","minimum":1,"maximum":10})";
  CHECK(problems(range, "1").empty());
  CHECK(problems(range, "10").empty());
  CHECK(only_problem(range, "0.5") == "input: must be at least 1, got 0.5");
  CHECK(only_problem(range, "11") == "input: must be at most 10, got 11");
  constexpr std::string_view open = R"({"exclusiveMinimum":0,"exclusiveMaximum":1})";
  CHECK(problems(open, "0.25").empty());
  CHECK(only_problem(open, "0") == "input: must be greater than 0, got 0");
  CHECK(only_problem(open, "1") == "input: must be less than 1, got 1");
  constexpr std::string_view draft4 = R"({"minimum":0,"exclusiveMinimum":true})";
  CHECK(only_problem(draft4, "0") == "input: must be greater than 0, got 0");
  CHECK(problems(draft4, "0.1").empty());
  CHECK(only_problem(range, R"("5")") == "input: expected number, got string");  // bounds skipped
}

TEST_CASE("string length counts code points; arrays count items") {
  constexpr std::string_view name = R"({"type":"string","minLength":2,"maxLength":3})";
  CHECK(problems(name, R"("éé")").empty());  // 2 code points, 4 bytes
  CHECK(only_problem(name, R"("a")") == "input: must be at least 2 characters long, got 1");
  CHECK(only_problem(name, R"("abcd")") == "input: must be at most 3 characters long, got 4");
  CHECK(only_problem(R"({"minLength":1})", R"("")") == "input: must be at least 1 character long, got 0");

  constexpr std::string_view list = R"({"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2})";
  CHECK(problems(list, R"(["a"])").empty());
  CHECK(only_problem(list, "[]") == "input: must have at least 1 item, got 0");
  CHECK(only_problem(list, R"(["a","b","c"])") == "input: must have at most 2 items, got 3");
  CHECK(only_problem(list, R"(["a",1])") == "input[1]: expected string, got number");
  // The tuple form checks positions; items past the list are free.
  CHECK(only_problem(R"({"items":[{"type":"string"},{"type":"integer"}]})", R"(["a","b",null])") ==
        "input[1]: expected integer, got string");
}

TEST_CASE("counts too large for size_t are unreachable limits, not undefined behaviour") {
  // Found by fuzzing: 4e86 converted to size_t was undefined behaviour.
  CHECK(!problems(R"({"minLength":4e86})", R"("abc")").empty());
  CHECK(problems(R"({"maxLength":1e30,"maxItems":1e300})", R"("abc")").empty());
  CHECK(problems(R"({"maxItems":18446744073709551616})", "[1,2]").empty());
  CHECK(!problems(R"({"minItems":1e20})", "[1]").empty());
}

TEST_CASE("pattern is an unanchored ECMAScript search") {
  constexpr std::string_view id = R"({"type":"string","pattern":"^[a-z][a-z0-9_]*$"})";
  CHECK(problems(id, R"("read_file2")").empty());
  CHECK(only_problem(id, R"("Read")") == "input: does not match the pattern '^[a-z][a-z0-9_]*$'");
  CHECK(problems(R"({"pattern":"\\d{3}"})", R"("abc123def")").empty());
  // A pattern applies to strings only; other types pass it.
  CHECK(problems(R"({"pattern":"^x$"})", "5").empty());
}

TEST_CASE("boolean schemas and an empty schema") {
  CHECK(problems("true", R"({"anything":[1,2]})").empty());
  CHECK(only_problem("false", "1") == "input: no value is allowed here");
  CHECK(only_problem(R"({"properties":{"never":false}})", R"({"never":0})") ==
        "input.never: no value is allowed here");
  CHECK(JsonSchema().accepts(json::parse("[null]")));
  CHECK(problems("{}", "null").empty());
}

TEST_CASE("unknown keywords are ignored; malformed known keywords are refused when compiling") {
  CHECK(problems(R"({"type":"string","format":"uri","title":"x","x-extension":{}})", R"("x")").empty());

  auto compile_error = [](std::string_view schema) {
    try {
      JsonSchema compiled(json::parse(schema));
    } catch (const amplifier::ModelError &e) {
      return std::string(e.what());
    }
    return std::string("(compiled)");
  };
  CHECK(compile_error(R"({"properties":{"path":{"type":"strng"}}})") ==
        "properties.path.type: unknown type 'strng'");
  CHECK(compile_error(R"({"properties":{"p":{"pattern":"[a-"}}})").starts_with(
      "properties.p.pattern: invalid regular expression '[a-'"));
  CHECK(compile_error(R"({"required":"path"})") == "required: must be an array of property names");
  CHECK(compile_error(R"({"minLength":-1})") == "minLength: must be a non-negative integer");
  CHECK(compile_error(R"({"maximum":"10"})") == "maximum: must be a number");
  CHECK(compile_error(R"({"items":[{"type":1}]})") == "items[0].type: a type must be a string");
  CHECK(compile_error("[]") == "a schema must be an object or a boolean, got array");
  CHECK(compile_error(R"({"enum":"a"})") == "enum: must be an array");
}

TEST_CASE("one compiled schema validates from many threads at once") {
  const JsonSchema schema(json::parse(R"({"type":"object","properties":{"s":{"pattern":"^a+$"}}})"));
  const json::value good = json::parse(R"({"s":"aaaa"})");
  const json::value bad = json::parse(R"({"s":"ab"})");
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if (!schema.accepts(good) || schema.accepts(bad)) ++mismatches[t];
      }
    });
  }
  for (auto &thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(4, 0));
}

TEST_CASE("anyOf and oneOf say what each alternative wanted") {
  // The shape of an optional field: every alternative wants another type.
  CHECK(only_problem(R"({"properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}}})",
                     R"({"x":1})") == "input.x: expected string or null, got number");
  CHECK(only_problem(R"({"anyOf":[{"type":"string","minLength":3},{"type":"integer"}]})",
                     R"("ab")") ==
        "input: matches no schema of anyOf ([0] must be at least 3 characters long, got 2; [1] "
        "expected integer, got string)");
  // A violation deeper than the alternative's value keeps its path.
  CHECK(only_problem(R"({"anyOf":[{"properties":{"a":{"type":"string"}}},{"required":["b"]}]})",
                     R"({"a":1})") ==
        "input: matches no schema of anyOf ([0] input.a: expected string, got number; [1] missing "
        "required property 'b')");
  CHECK(
      only_problem(R"({"anyOf":[{"const":1},{"const":2},{"const":3},{"const":4},{"const":5}]})",
                   "6") ==
      "input: matches no schema of anyOf ([0] must be 1, got 6; [1] must be 2, got 6; [2] must be "
      "3, got 6; [3] must be 4, got 6; 1 more)");
  CHECK(only_problem(R"({"oneOf":[{"type":"integer"},{"minimum":0}]})", "3") ==
        "input: must match exactly one schema of oneOf, but matches [0] and [1]");
  CHECK(only_problem(R"({"oneOf":[{"type":"integer"},{"type":"boolean"}]})", R"("x")") ==
        "input: expected integer or boolean, got string");
}

TEST_CASE("messages quote at most a line of a large value or of a nested message") {
  const std::string long_text(1000, 'x');
  CHECK(only_problem(R"({"const":"x"})", "\"" + long_text + "\"") ==
        "input: must be \"x\", got \"" + std::string(116, 'x') + "...");
  CHECK(only_problem(R"({"additionalProperties":false})", "{\"" + long_text + "\":1}") ==
        "input: unexpected property '" + std::string(117, 'x') +
            "...' (no properties are allowed)");
  // Nested alternatives would otherwise quote each other, doubling the message at every level.
  json::parse_options deep;
  deep.max_depth = 100;
  const JsonSchema nested(
      json::parse(R"({"type":"array","anyOf":[{"items":{"$ref":"#"}},{"items":{"$ref":"#"}}]})"));
  const auto violations =
      nested.validate(json::parse(std::string(15, '[') + "1" + std::string(15, ']'), {}, deep));
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].message().starts_with(
      "input: matches no schema of anyOf ([0] input[0]: matches no schema of anyOf ([0] "));
  CHECK(violations[0].message().size() < 600);
}

TEST_CASE("allOf, $ref, then and else report their violations where they occur") {
  const auto both = problems(R"({"allOf":[{"required":["a"]},{"required":["b"]}]})", "{}");
  CHECK(both == std::vector<std::string>{"input: missing required property 'a'",
                                         "input: missing required property 'b'"});
  constexpr std::string_view items = R"({
    "definitions":{"item":{"type":"object","properties":{"name":{"type":"string"}}}},
    "properties":{"items":{"type":"array","items":{"$ref":"#/definitions/item"}}}})";
  CHECK(only_problem(items, R"({"items":[{},{},{"name":3}]})") ==
        "input.items[2].name: expected string, got number");
  constexpr std::string_view tree = R"({"$defs":{"tree":{"type":"object",
    "properties":{"value":{"type":"number"},"children":{"type":"array","items":{"$ref":"#/$defs/tree"}}}}},
    "$ref":"#/$defs/tree"})";
  CHECK(
      only_problem(tree, R"({"value":1,"children":[{"value":2},{"children":[{"value":"x"}]}]})") ==
      "input.children[1].children[0].value: expected number, got string");
  constexpr std::string_view kind = R"({"if":{"properties":{"kind":{"const":"file"}}},
    "then":{"required":["path"]},"else":{"required":["url"]}})";
  CHECK(only_problem(kind, R"({"kind":"file"})") == "input: missing required property 'path'");
  CHECK(only_problem(kind, R"({"kind":"link"})") == "input: missing required property 'url'");
  CHECK(only_problem(R"({"not":{"type":"string"}})", R"("x")") ==
        "input: must not match the schema under 'not'");
}

TEST_CASE("object, array and number keywords beyond the basics") {
  CHECK(only_problem(R"({"propertyNames":{"maxLength":3}})", R"({"foo":1,"foobar":2})") ==
        "input: property name 'foobar' is not allowed: must be at most 3 characters long, got 6");
  CHECK(only_problem(R"({"dependencies":{"bar":["foo"]}})", R"({"bar":1})") ==
        "input: property 'bar' requires property 'foo'");
  CHECK(only_problem(R"({"minProperties":2})", R"({"a":1})") ==
        "input: must have at least 2 properties, got 1");
  CHECK(only_problem(R"({"maxProperties":1})", R"({"a":1,"b":2})") ==
        "input: must have at most 1 property, got 2");
  CHECK(only_problem(R"({"properties":{"foo":{}},"patternProperties":{"^x_":{}},
                         "additionalProperties":false})",
                     R"({"x_a":1,"y":2})") ==
        "input: unexpected property 'y' (allowed: foo, names matching '^x_')");
  CHECK(only_problem(R"({"patternProperties":{"^n_":{"type":"integer"}}})", R"({"n_a":"1"})") ==
        "input.n_a: expected integer, got string");
  CHECK(only_problem(R"({"items":[{"type":"string"}],"additionalItems":false})", R"(["a",1])") ==
        "input: must have at most 1 item, got 2");
  CHECK(only_problem(R"({"items":[{}],"additionalItems":{"type":"string"}})", R"([1,2])") ==
        "input[1]: expected string, got number");
  CHECK(only_problem(R"({"uniqueItems":true})", R"([1,"a",1.0])") ==
        "input: must not repeat items: [0] and [2] are equal");
  CHECK(only_problem(R"({"contains":{"type":"string"}})", "[1,2]") ==
        "input: must contain an item that matches the 'contains' schema");
  CHECK(only_problem(R"({"contains":{"type":"string"},"minContains":2})", R"([1,"a"])") ==
        "input: must contain at least 2 items that match the 'contains' schema, got 1");
  CHECK(only_problem(R"({"multipleOf":2})", "4.5") == "input: must be a multiple of 2, got 4.5");
  CHECK(only_problem(R"({"multipleOf":0.5})", "0.75") ==
        "input: must be a multiple of 0.5, got 0.75");
}

namespace {
std::string compile_error(std::string_view schema) {
  try {
    JsonSchema compiled(json::parse(schema));
  } catch (const amplifier::ModelError &e) {
    return std::string(e.what());
  }
  return std::string("(compiled)");
}
}  // namespace

TEST_CASE("a $ref is followed only inside the schema: nothing is fetched") {
  CHECK(compile_error(R"({"$ref":"http://example.com/schema.json"})") ==
        "$ref: 'http://example.com/schema.json' refers to another document; only references inside "
        "the schema ('#/...') are followed, nothing is fetched");
  CHECK(compile_error(R"({"properties":{"a":{"$ref":"other.json#/definitions/x"}}})")
            .starts_with(
                "properties.a.$ref: 'other.json#/definitions/x' refers to another document"));
  CHECK(compile_error(R"({"$ref":"#/definitions/missing"})") ==
        "$ref: '#/definitions/missing' does not point into the schema");
  CHECK(compile_error(R"({"items":[{}],"properties":{"a":{"$ref":"#/items/1"}}})") ==
        "properties.a.$ref: '#/items/1' does not point into the schema");
  CHECK(compile_error(R"({"$ref":"#node"})") ==
        "$ref: '#node' names an anchor; only JSON pointers ('#/...') are supported");
  CHECK(compile_error(R"({"$ref":"#/definitions/a%zz"})") ==
        "$ref: '#/definitions/a%zz' has a malformed %-escape");
  CHECK(compile_error(R"({"$ref":5})") == "$ref: must be a string");
  // An error in the target names where it is and which $ref led there.
  CHECK(
      compile_error(
          R"({"properties":{"p":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"strng"}}})") ==
      "definitions.a.type: unknown type 'strng' (reached through properties.p.$ref)");
  // Unused definitions are not compiled, as no value is ever checked against them.
  CHECK(
      problems(R"({"definitions":{"unused":{"type":"strng"}},"type":"string"})", R"("x")").empty());
}

TEST_CASE("a schema that loops without descending into the value does not compile") {
  CHECK(compile_error(R"({"$ref":"#"})") ==
        "the schema loops back to itself without descending into the value: # -> #");
  CHECK(compile_error(R"({"anyOf":[{"type":"string"},{"$ref":"#"}]})") ==
        "the schema loops back to itself without descending into the value: # -> #/anyOf/1 -> #");
  CHECK(compile_error(R"({"definitions":{"a":{"allOf":[{"$ref":"#/definitions/b"}]},
                                         "b":{"not":{"$ref":"#/definitions/a"}}},
                          "$ref":"#/definitions/a"})") ==
        "the schema loops back to itself without descending into the value: #/definitions/a -> "
        "#/definitions/a/allOf/0 -> #/definitions/b -> #/definitions/b/not -> #/definitions/a");
  // Recursion through a property, an item or a property name reaches a smaller value each time.
  CHECK(compile_error(R"({"properties":{"child":{"$ref":"#"}}})") == "(compiled)");
  CHECK(compile_error(R"({"items":{"$ref":"#"}})") == "(compiled)");
  CHECK(compile_error(R"({"propertyNames":{"$ref":"#"}})") == "(compiled)");
}

TEST_CASE("keywords this validator does not implement refuse to compile, malformed new ones too") {
  CHECK(compile_error(R"({"unevaluatedProperties":false})") ==
        "unevaluatedProperties: is not supported, so the schema cannot be checked");
  CHECK(compile_error(R"({"unevaluatedProperties":true})") == "(compiled)");  // no effect
  CHECK(compile_error(R"({"items":{"$dynamicRef":"#meta"}})") ==
        "items.$dynamicRef: is not supported, so the schema cannot be checked");
  CHECK(compile_error(R"({"anyOf":[]})") == "anyOf: must be a non-empty array of schemas");
  CHECK(compile_error(R"({"oneOf":{"type":"string"}})") ==
        "oneOf: must be a non-empty array of schemas");
  CHECK(compile_error(R"({"allOf":[{"type":"strng"}]})") == "allOf[0].type: unknown type 'strng'");
  CHECK(compile_error(R"({"not":3})") ==
        "not: a schema must be an object or a boolean, got number");
  CHECK(compile_error(R"({"multipleOf":0})") == "multipleOf: must be a number greater than 0");
  CHECK(compile_error(R"({"uniqueItems":1})") == "uniqueItems: must be a boolean");
  CHECK(compile_error(R"({"patternProperties":{"[":{}}})")
            .starts_with("patternProperties.[: invalid regular expression '['"));
  CHECK(compile_error(R"({"dependencies":{"a":[1]}})") ==
        "dependencies.a: must be an array of property names");
  CHECK(compile_error(R"({"minContains":-1})") == "minContains: must be a non-negative integer");
  // format is an annotation: not checked, whatever the format.
  CHECK(problems(R"({"format":"date"})", R"("not a date")").empty());
  CHECK(problems(R"({"format":"date-time"})", "5").empty());
}

TEST_CASE("a validation that cannot finish rejects the input instead of hanging or overflowing") {
  json::parse_options deep;
  deep.max_depth = 100000;
  auto nested_arrays = [&](int depth) {
    return json::parse(std::string(depth, '[') + std::string(depth, ']'), {}, deep);
  };
  // Each level checks the next twice: 2^30 steps against 30 nested arrays.
  const JsonSchema fan_out(
      json::parse(R"({"allOf":[{"items":{"$ref":"#"}},{"items":{"$ref":"#"}}]})"));
  const auto costly = fan_out.validate(nested_arrays(30));
  REQUIRE(costly.size() == 1);
  CHECK(costly[0].message() ==
        "input: could not be checked: it takes more than 1000000 steps against this schema (too "
        "large an input, or too intricate a schema)");
  CHECK(fan_out.accepts(nested_arrays(5)));

  const JsonSchema any_depth(json::parse(R"({"items":{"$ref":"#"}})"));
  CHECK(any_depth.accepts(nested_arrays(400)));
  const auto deep_violations = any_depth.validate(nested_arrays(2000));
  REQUIRE(deep_violations.size() == 1);
  CHECK(deep_violations[0].message() ==
        "input: could not be checked: the value and the schema nest more than 1024 levels deep");

  // A schema nested deeper than compiling recurses.
  std::string deep_schema;
  for (int i = 0; i < 600; ++i) deep_schema += R"({"items":)";
  deep_schema += "true" + std::string(600, '}');
  try {
    JsonSchema compiled(json::parse(deep_schema, {}, deep));
    FAIL("compiled");
  } catch (const amplifier::ModelError &e) {
    CHECK(e.problem() == "the schema nests more than 512 levels deep");
  }

  // A pattern too costly to match rejects the value (std::regex overflows the stack here).
  const JsonSchema ab(json::parse(R"({"pattern":"^(a|b)*$"})"));
  CHECK(ab.accepts(json::value(std::string(1000, 'a'))));
  const auto long_string = ab.validate(json::value(std::string(200000, 'a')));
  REQUIRE(long_string.size() == 1);
  CHECK(long_string[0].message().starts_with(
      "input: could not be checked against the pattern '^(a|b)*$': "));
}
