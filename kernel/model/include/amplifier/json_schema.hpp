// Validation of tool inputs against the JSON Schema of a ToolSpec's `parameters`, so a
// malformed call becomes an error result the model can read and correct ("input.path:
// expected string, got number") instead of reaching the tool.
//
// The subset tools use, with draft 2020-12 meanings:
//   type (a name or an array of names: string, number, integer, boolean, object, array, null;
//   an integer is any number without a fractional part, so 3.0 is an integer),
//   properties, required, additionalProperties (false or a schema),
//   enum, const, items (a schema, or an array of schemas checked position by position),
//   minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers; the draft-04 boolean form
//   of the exclusive keywords is accepted too), minLength, maxLength (counted in code points),
//   minItems, maxItems, pattern (ECMAScript syntax, unanchored search), and the boolean
//   schemas true and false.
// Every other keyword (description, default, title, $schema, ...) is ignored, as the standard
// asks of keywords a validator does not know.
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

// A compiled schema: keywords checked and patterns compiled once, so validating is cheap
// enough to run on every tool call.
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
  // expression '[a-': ...".
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
