// Tool input validation (kernel/model json_schema.hpp): ns per compile of a tool's parameters
// and per validate() of a typical input, a rejected input and a large input.
// Usage: bench_json_schema [min_ms_per_case]   (run from a Release or RelWithDebInfo build)
#include "amplifier/json_schema.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// edit_file's parameters, as tool-filesystem publishes them.
constexpr std::string_view kEditFile = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to edit"},
    "old_string": {"type": "string", "minLength": 1, "description": "The exact text to replace"},
    "new_string": {"type": "string", "description": "The text to put in its place"},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)"}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
})json";

// A batch tool: an array of edits, each an object with an enum, a pattern and an optional
// (string or null) field: the shapes generated schemas have.
constexpr std::string_view kBatch = R"({
  "type": "object",
  "properties": {
    "edits": {"type": "array", "maxItems": 5000, "items": {
      "type": "object",
      "properties": {
        "op": {"enum": ["insert", "delete", "replace"]},
        "line": {"type": "integer", "minimum": 1},
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "text": {"type": ["string", "null"]}
      },
      "required": ["op", "line"],
      "additionalProperties": false}}
  },
  "required": ["edits"]
})";

std::string batch_input(int edits) {
  std::string text = R"({"edits":[)";
  for (int i = 0; i < edits; ++i)
    text += fmt::format(R"({}{{"op":"replace","line":{},"id":"edit_{}","text":"line {}"}})",
                        i ? "," : "", i + 1, i, i);
  return text + "]}";
}

// Runs `fn` repeatedly for at least `min_ms` and returns ns per run.
template <class Fn>
double ns_per_run(double min_ms, Fn &&fn) {
  long runs = 0;
  const auto start = Clock::now();
  std::chrono::duration<double, std::milli> elapsed{};
  do {
    for (int i = 0; i < 64; ++i) fn();
    runs += 64;
    elapsed = Clock::now() - start;
  } while (elapsed.count() < min_ms);
  return elapsed.count() * 1e6 / static_cast<double>(runs);
}

void report(std::string_view name, double ns) { fmt::print("{:<44} {:>12.0f} ns\n", name, ns); }

}  // namespace

int main(int argc, char **argv) {
  const double min_ms = argc > 1 ? std::atof(argv[1]) : 300;
  const json::value edit_schema_json = json::parse(kEditFile);
  const json::value batch_schema_json = json::parse(kBatch);
  const amplifier::JsonSchema edit_file(edit_schema_json);
  const amplifier::JsonSchema batch(batch_schema_json);
  const json::value good_edit =
      json::parse(R"({"path":"src/a.cpp","old_string":"x","new_string":"y"})");
  const json::value bad_edit = json::parse(R"({"path":1,"old_string":"","replace":true})");
  const json::value big_batch = json::parse(batch_input(1000));
  std::size_t sink = 0;

  report("compile edit_file", ns_per_run(min_ms, [&] {
           sink += amplifier::JsonSchema(edit_schema_json).accepts(good_edit);
         }));
  report("compile batch", ns_per_run(min_ms, [&] {
           sink += amplifier::JsonSchema(batch_schema_json).accepts(json::object{});
         }));
  report("validate edit_file, valid",
         ns_per_run(min_ms, [&] { sink += edit_file.validate(good_edit).size(); }));
  report("validate edit_file, 4 violations",
         ns_per_run(min_ms, [&] { sink += edit_file.validate(bad_edit).size(); }));
  report("validate batch of 1000 edits, valid",
         ns_per_run(min_ms, [&] { sink += batch.validate(big_batch).size(); }));
  return sink == 42 ? 1 : 0;  // keeps the work observable
}
