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
