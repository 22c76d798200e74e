// Validation of tool inputs against the JSON Schema of a ToolSpec's `parameters`, so a
// malformed call becomes an error result the model can read and correct ("input.path:
// expected string, got number") instead of reaching the tool.
//
// JSON Schema draft 7, every validation keyword:
//   type (an integer is any number without a fractional part, so 3.0 is one), enum, const,
//   properties, patternProperties, additionalProperties, required, propertyNames,
//   dependencies, minProperties, maxProperties, items (a schema, or an array checked position
//   by position), additionalItems, contains, minItems, maxItems, uniqueItems, minimum, maximum,
//   exclusiveMinimum, exclusiveMaximum (also draft 4's boolean form), multipleOf, minLength,
//   maxLength (in code points), pattern (ECMAScript syntax, unanchored search), allOf, anyOf,
//   oneOf, not, if/then/else, $ref, and the boolean schemas true and false;
// and the 2019-09/2020-12 names of the same checks: $defs, prefixItems, dependentRequired,
// dependentSchemas, minContains, maxContains.
// $ref: references inside the schema ("#", "#/definitions/a", "#/$defs/a", or the root's $id
// followed by such a fragment), recursive ones included. Nothing is ever fetched: a reference to
// another document, or to an anchor ("#name"), does not compile. A $ref's sibling keywords
// apply, as in 2019-09 and later, unless $schema names draft 7 or earlier, where they are
// ignored. A nested $id does not change what references resolve against.
// A schema whose subschemas loop without descending into the value ({"$ref": "#"}, or two
// definitions whose allOf name each other) does not compile: validating would never end.
// format is an annotation (draft 2020-12's default): not checked. unevaluatedProperties,
// unevaluatedItems, $dynamicRef and $recursiveRef are not implemented, so a schema using them
// does not compile rather than be checked less strictly than it says. Every other keyword
// (description, default, title, $schema, ...) is ignored, as the standard asks of keywords a
// validator does not know.
//
// (valijson 1.0, the packaged library, was tried for this and not used: on this host it
// overflowed the stack on {"$ref": "#"}, on an anyOf looping back to the root and on a pattern
// matched against a 200,000-character string (std::regex recurses per character), never
// finished on exponential $ref fan-out, accepted 2.5 as a multiple of 2, rejected 3.0 as an
// integer, and rejected every number under a "format".) The official JSON-Schema-Test-Suite's
// draft 7 files run against this validator (tests/json_schema/test_json_schema_suite.cpp): every
// required test passes, and the groups that reference another document are refused at compile.
#pragma once
#include "amplifier/model_base.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

// One way the instance breaks the schema.
struct SchemaViolation {
  std::string path;     // where, e.g. "input.files[2]" or "input" for the root
  std::string problem;  // what, e.g. "expected string, got number"

  // "<path>: <problem>", e.g. "input: missing required property 'path'".
  std::string message() const;
};

// A compiled schema: keywords checked, patterns compiled and references resolved once, so
// validating is cheap enough to run on every tool call. One validate() takes at most a million
// steps and recurses at most 1024 levels deep; an input it cannot finish checking is rejected
// with a violation at the root saying so.
//
// THREADS: immutable after construction; validate() may run concurrently from any number of
// threads. Copies share the compiled form.
class JsonSchema {
 public:
  // The schema that accepts everything.
  JsonSchema();
  // Compiles `schema` (an object or a boolean). Throws ModelError naming the keyword's path
  // inside the schema when a keyword this validator understands is malformed, e.g.
  // "properties.path.type: unknown type 'strng'" or "properties.name.pattern: invalid regular
  // expression '[a-': ...", when a $ref cannot be followed, or when the schema loops (above).
  explicit JsonSchema(const boost::json::value &schema);

  // The violations of `instance`, in document order, at most `max_violations` of them;
  // empty when it is valid. Paths start at `root` ("input").
  std::vector<SchemaViolation> validate(const boost::json::value &instance,
                                        std::string_view root = "input",
                                        std::size_t max_violations = 16) const;

  bool accepts(const boost::json::value &instance) const;

  struct Node;  // the compiled form; opaque

 private:
  std::shared_ptr<const Node> root_;
};

// The violations' messages joined by "; " ("" when there are none): one line a tool result
// can carry back to the model.
std::string describe_violations(const std::vector<SchemaViolation> &violations);

}  // namespace amplifier
