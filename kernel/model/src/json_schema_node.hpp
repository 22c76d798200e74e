// The compiled form of a JSON Schema (json_schema.hpp), shared by the compiler
// (json_schema_compile.cpp) and the validator (json_schema.cpp).
#pragma once
#include "amplifier/json_schema.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <boost/regex.hpp>

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {
namespace schema_detail {

// Type bits; `kAnyType` (no bit set) means the schema does not constrain the type.
enum TypeBit : unsigned {
  kAnyType = 0,
  kString = 1u << 0,
  kNumber = 1u << 1,
  kInteger = 1u << 2,
  kBoolean = 1u << 3,
  kObject = 1u << 4,
  kArray = 1u << 5,
  kNull = 1u << 6,
};

struct TypeName {
  std::string_view name;
  TypeBit bit;
};
inline constexpr TypeName kTypeNames[] = {
    {"string", kString}, {"number", kNumber}, {"integer", kInteger}, {"boolean", kBoolean},
    {"object", kObject}, {"array", kArray},   {"null", kNull}};

inline bool is_integral_number(const boost::json::value &v) {
  if (v.is_int64() || v.is_uint64()) return true;
  return v.is_double() && std::isfinite(v.get_double()) &&
         std::trunc(v.get_double()) == v.get_double();
}

inline double as_double(const boost::json::value &v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

// The JSON type a value has, as the messages name it. Every number is a "number": the message
// then reads "expected integer, got number" for 2.5 and "expected string, got number" for 5.
inline std::string_view json_type_name(const boost::json::value &v) {
  switch (v.kind()) {
    case boost::json::kind::string:
      return "string";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      return "number";
    case boost::json::kind::bool_:
      return "boolean";
    case boost::json::kind::object:
      return "object";
    case boost::json::kind::array:
      return "array";
    case boost::json::kind::null:
      return "null";
  }
  return "value";
}

struct Pattern {
  std::string source;
  boost::regex regex;
};

// How deep compiling and validating may recurse: deeper schemas do not compile and deeper
// checks fail closed, so neither overflows a thread's stack. A check level takes up to about
// 1 KiB of stack (RelWithDebInfo; more under ASan); the kernel parses tool inputs at most 256
// levels deep, and a level of the input may cost a few levels of checks ($ref, anyOf).
inline constexpr std::size_t kMaxSchemaDepth = 512;
inline constexpr std::size_t kMaxCheckDepth = 1024;

}  // namespace schema_detail

// One schema of the document. The schemas of a document form a graph (a $ref may point back
// up), so subschemas are plain pointers into the arena that owns every node (see compile()).
struct JsonSchema::Node {
  using Pattern = schema_detail::Pattern;
  struct Property {
    std::string name;
    const Node *schema;
  };
  struct PatternProperty {
    Pattern pattern;
    const Node *schema;
  };
  struct DependentRequired {
    std::string name;
    std::vector<std::string> required;
  };
  struct DependentSchema {
    std::string name;
    const Node *schema;
  };
  struct Bound {
    double value;
    bool exclusive;
  };

  std::size_t id = 0;    // the node's index in its arena
  std::string location;  // a JSON pointer into the schema document, "#/properties/path"

  bool rejects_everything = false;  // the boolean schema false
  const Node *ref = nullptr;        // $ref's target
  bool ref_only = false;            // only the $ref counts (it has no siblings, or draft 7)
  unsigned types = schema_detail::kAnyType;
  std::optional<boost::json::array> enum_values;
  std::optional<boost::json::value> const_value;

  // Objects.
  std::vector<std::string> required;
  std::vector<Property> properties;
  std::vector<PatternProperty> pattern_properties;
  bool additional_forbidden = false;  // additionalProperties: false
  const Node *additional_properties = nullptr;
  const Node *property_names = nullptr;
  std::vector<DependentRequired> dependent_required;  // also dependencies' array form
  std::vector<DependentSchema> dependent_schemas;     // also dependencies' schema form
  std::optional<std::size_t> min_properties, max_properties;

  // Arrays: item i is checked against prefix_items[i], later items against rest_items (null:
  // anything goes).
  std::vector<const Node *> prefix_items;
  const Node *rest_items = nullptr;
  std::optional<std::size_t> min_items, max_items;
  bool unique_items = false;
  const Node *contains = nullptr;
  std::optional<std::size_t> min_contains, max_contains;

  // Numbers.
  std::optional<Bound> lower, upper;
  std::optional<double> multiple_of;

  // Strings.
  std::optional<std::size_t> min_length, max_length;
  std::optional<Pattern> pattern;

  // Applicators: subschemas checked against the same value.
  std::vector<const Node *> all_of, any_of, one_of;
  const Node *not_schema = nullptr;
  const Node *if_schema = nullptr, *then_schema = nullptr, *else_schema = nullptr;

  const Node *property(std::string_view name) const {
    for (const auto &p : properties)
      if (p.name == name) return p.schema;
    return nullptr;
  }

  // Calls fn(const Node &) for every subschema checked against the same value as this one:
  // a loop among these never reaches a smaller part of the input, so it never ends.
  template <class Fn>
  void for_each_same_value_schema(Fn &&fn) const {
    if (ref) fn(*ref);
    for (const Node *s : all_of) fn(*s);
    for (const Node *s : any_of) fn(*s);
    for (const Node *s : one_of) fn(*s);
    for (const Node *s : {not_schema, if_schema, then_schema, else_schema})
      if (s) fn(*s);
    for (const auto &d : dependent_schemas) fn(*d.schema);
  }
};

namespace schema_detail {

// Compiles a schema document. The node returned shares ownership of the arena holding every
// node of the document. Throws ModelError (see JsonSchema's constructor).
std::shared_ptr<const JsonSchema::Node> compile(const boost::json::value &schema);

}  // namespace schema_detail
}  // namespace amplifier
