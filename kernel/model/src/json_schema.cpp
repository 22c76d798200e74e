#include "amplifier/json_schema.hpp"

#include <boost/json/serialize.hpp>
#include <boost/regex.hpp>

#include <cctype>
#include <charconv>
#include <functional>
#include <limits>
#include <cmath>
#include <optional>

namespace amplifier {
namespace json = boost::json;

namespace {

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
constexpr TypeName kTypeNames[] = {{"string", kString},   {"number", kNumber}, {"integer", kInteger},
                                   {"boolean", kBoolean}, {"object", kObject}, {"array", kArray},
                                   {"null", kNull}};

bool is_integral_number(const json::value &v) {
  if (v.is_int64() || v.is_uint64()) return true;
  return v.is_double() && std::isfinite(v.get_double()) &&
         std::trunc(v.get_double()) == v.get_double();
}

double as_double(const json::value &v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

// The JSON type a value has, as the messages name it. Every number is a "number": the message
// then reads "expected integer, got number" for 2.5 and "expected string, got number" for 5.
std::string_view json_type_name(const json::value &v) {
  switch (v.kind()) {
    case json::kind::string: return "string";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "number";
    case json::kind::bool_: return "boolean";
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::null: return "null";
  }
  return "value";
}

bool has_type(const json::value &v, unsigned types) {
  if (types == kAnyType) return true;
  switch (v.kind()) {
    case json::kind::string: return types & kString;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return (types & kNumber) || ((types & kInteger) && is_integral_number(v));
    case json::kind::bool_: return types & kBoolean;
    case json::kind::object: return types & kObject;
    case json::kind::array: return types & kArray;
    case json::kind::null: return types & kNull;
  }
  return false;
}

// "string", "string or null", "string, number or null".
std::string describe_types(unsigned types) {
  std::vector<std::string_view> names;
  for (const auto &t : kTypeNames)
    if (types & t.bit) names.push_back(t.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// Numbers as a person writes them: 3, not 3E0 (Boost.JSON's double notation).
std::string format_number(double number) {
  if (std::isfinite(number) && std::trunc(number) == number && std::fabs(number) < 1e15)
    return std::to_string(static_cast<long long>(number));
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, number);
  return ec == std::errc() ? std::string(text, end) : std::string("?");
}

std::string format_value(const json::value &v) {
  if (v.is_number()) return format_number(as_double(v));
  return json::serialize(v);
}

// Equality as JSON Schema defines it for enum and const: numbers compare by value (1 == 1.0).
bool json_equal(const json::value &a, const json::value &b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double()) return as_double(a) == as_double(b);
    return a == b;
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!json_equal(x[i], y[i])) return false;
    return true;
  }
  if (a.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto &entry : x) {
      const json::value *other = y.if_contains(entry.key());
      if (!other || !json_equal(entry.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

std::size_t code_points(std::string_view text) {
  std::size_t count = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++count;  // every byte that does not continue a sequence
  return count;
}

bool is_identifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) return false;
  for (unsigned char c : key)
    if (!std::isalnum(c) && c != '_') return false;
  return true;
}

std::string plural(std::size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

// A path inside the schema, for compile errors: "properties.path.type".
std::string schema_path(const std::string &parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

}  // namespace

struct JsonSchema::Node {
  struct Property {
    std::string name;
    std::unique_ptr<Node> schema;
  };
  struct Pattern {
    std::string source;
    boost::regex regex;
  };
  struct Bound {
    double value;
    bool exclusive;
  };

  bool rejects_everything = false;  // the boolean schema false
  unsigned types = kAnyType;
  std::vector<Property> properties;
  std::vector<std::string> required;
  bool additional_forbidden = false;
  std::unique_ptr<Node> additional_schema;
  std::optional<json::array> enum_values;
  std::optional<json::value> const_value;
  std::unique_ptr<Node> items;
  std::vector<std::unique_ptr<Node>> tuple_items;
  std::optional<Bound> lower, upper;
  std::optional<std::size_t> min_length, max_length, min_items, max_items;
  std::optional<Pattern> pattern;

  const Node *property(std::string_view name) const {
    for (const auto &p : properties)
      if (p.name == name) return p.schema.get();
    return nullptr;
  }
};

namespace {

using Node = JsonSchema::Node;

class Compiler {
 public:
  std::unique_ptr<Node> compile(const json::value &schema, const std::string &path) {
    auto node = std::make_unique<Node>();
    if (schema.is_bool()) {
      node->rejects_everything = !schema.get_bool();
      return node;
    }
    if (!schema.is_object())
      throw ModelError(path, "a schema must be an object or a boolean, got " +
                                 std::string(json_type_name(schema)));
    const json::object &o = schema.get_object();
    read_types(*node, o, path);
    read_object_keywords(*node, o, path);
    read_array_keywords(*node, o, path);
    read_number_keywords(*node, o, path);
    read_string_keywords(*node, o, path);
    if (const auto *e = o.if_contains("enum")) {
      if (!e->is_array()) throw ModelError(schema_path(path, "enum"), "must be an array");
      node->enum_values = e->get_array();
    }
    if (const auto *c = o.if_contains("const")) node->const_value = *c;
    return node;
  }

 private:
  static unsigned type_bit(const json::value &name, const std::string &path) {
    if (!name.is_string()) throw ModelError(path, "a type must be a string");
    for (const auto &t : kTypeNames)
      if (t.name == name.get_string()) return t.bit;
    throw ModelError(path, "unknown type '" + std::string(name.get_string()) + "'");
  }

  static void read_types(Node &node, const json::object &o, const std::string &path) {
    const json::value *type = o.if_contains("type");
    if (!type) return;
    const std::string at = schema_path(path, "type");
    if (type->is_array()) {
      for (const auto &name : type->get_array()) node.types |= type_bit(name, at);
      if (node.types == kAnyType) throw ModelError(at, "must name at least one type");
    } else {
      node.types = type_bit(*type, at);
    }
  }

  void read_object_keywords(Node &node, const json::object &o, const std::string &path) {
    if (const auto *props = o.if_contains("properties")) {
      const std::string at = schema_path(path, "properties");
      if (!props->is_object()) throw ModelError(at, "must be an object");
      for (const auto &entry : props->get_object()) {
        node.properties.push_back(
            {std::string(entry.key()), compile(entry.value(), schema_path(at, entry.key()))});
      }
    }
    if (const auto *req = o.if_contains("required")) {
      const std::string at = schema_path(path, "required");
      if (!req->is_array()) throw ModelError(at, "must be an array of property names");
      for (const auto &name : req->get_array()) {
        if (!name.is_string()) throw ModelError(at, "must be an array of property names");
        node.required.emplace_back(name.get_string());
      }
    }
    if (const auto *extra = o.if_contains("additionalProperties")) {
      if (extra->is_bool()) node.additional_forbidden = !extra->get_bool();
      else node.additional_schema = compile(*extra, schema_path(path, "additionalProperties"));
    }
  }

  void read_array_keywords(Node &node, const json::object &o, const std::string &path) {
    if (const auto *items = o.if_contains("items")) {
      const std::string at = schema_path(path, "items");
      if (items->is_array()) {
        std::size_t i = 0;
        for (const auto &item : items->get_array())
          node.tuple_items.push_back(compile(item, at + "[" + std::to_string(i++) + "]"));
      } else {
        node.items = compile(*items, at);
      }
    }
    node.min_items = count(o, "minItems", path);
    node.max_items = count(o, "maxItems", path);
  }

  static void read_number_keywords(Node &node, const json::object &o, const std::string &path) {
    // Draft 4 wrote `"minimum": 0, "exclusiveMinimum": true`; later drafts write
    // `"exclusiveMinimum": 0`. Tool schemas in the wild use both.
    node.lower = bound(o, "minimum", "exclusiveMinimum", path, std::greater<>());
    node.upper = bound(o, "maximum", "exclusiveMaximum", path, std::less<>());
  }

  template <class Stricter>
  static std::optional<Node::Bound> bound(const json::object &o, std::string_view inclusive_key,
                                          std::string_view exclusive_key, const std::string &path,
                                          Stricter stricter) {
    std::optional<Node::Bound> result;
    const json::value *inclusive = o.if_contains(inclusive_key);
    if (inclusive) result = Node::Bound{number(*inclusive, schema_path(path, inclusive_key)), false};
    const json::value *exclusive = o.if_contains(exclusive_key);
    if (!exclusive) return result;
    if (exclusive->is_bool()) {
      if (exclusive->get_bool() && result) result->exclusive = true;
      return result;
    }
    const double limit = number(*exclusive, schema_path(path, exclusive_key));
    // Both given: the stricter one decides (an exclusive limit equal to the inclusive one is
    // stricter).
    if (!result || stricter(limit, result->value) || limit == result->value)
      result = Node::Bound{limit, true};
    return result;
  }

  static void read_string_keywords(Node &node, const json::object &o, const std::string &path) {
    node.min_length = count(o, "minLength", path);
    node.max_length = count(o, "maxLength", path);
    const json::value *pattern = o.if_contains("pattern");
    if (!pattern) return;
    const std::string at = schema_path(path, "pattern");
    if (!pattern->is_string()) throw ModelError(at, "must be a string");
    std::string source(pattern->get_string());
    try {
      node.pattern = Node::Pattern{source, boost::regex(source, boost::regex::ECMAScript)};
    } catch (const std::exception &e) {
      throw ModelError(at, "invalid regular expression '" + source + "': " + e.what());
    }
  }

  static double number(const json::value &v, const std::string &path) {
    if (!v.is_number()) throw ModelError(path, "must be a number");
    return as_double(v);
  }

  static std::optional<std::size_t> count(const json::object &o, std::string_view key,
                                          const std::string &path) {
    const json::value *v = o.if_contains(key);
    if (!v) return std::nullopt;
    if (!is_integral_number(*v) || as_double(*v) < 0)
      throw ModelError(schema_path(path, key), "must be a non-negative integer");
    // A count past what size_t holds (e.g. minLength 1e30) cannot be met or broken by any
    // instance in memory; converting it would be undefined behaviour (found by fuzzing).
    const double n = as_double(*v);
    if (n >= 18446744073709551616.0) return std::numeric_limits<std::size_t>::max();
    return static_cast<std::size_t>(n);
  }
};

// Walks an instance beside its schema, collecting violations. The path of the value being
// checked is built in one string, grown on the way down and cut back on the way up.
class Validator {
 public:
  Validator(std::string_view root, std::size_t limit) : path_(root), limit_(limit) {}

  std::vector<SchemaViolation> take() { return std::move(violations_); }

  void check(const Node &node, const json::value &v) {
    if (full()) return;
    if (node.rejects_everything) return report("no value is allowed here");
    if (!has_type(v, node.types))
      return report("expected " + describe_types(node.types) + ", got " +
                    std::string(json_type_name(v)));
    if (node.enum_values) check_enum(*node.enum_values, v);
    if (node.const_value && !json_equal(*node.const_value, v))
      report("must be " + format_value(*node.const_value) + ", got " + format_value(v));
    switch (v.kind()) {
      case json::kind::object: return check_object(node, v.get_object());
      case json::kind::array: return check_array(node, v.get_array());
      case json::kind::string: return check_string(node, v.get_string());
      case json::kind::int64:
      case json::kind::uint64:
      case json::kind::double_: return check_number(node, v);
      default: return;
    }
  }

 private:
  bool full() const { return violations_.size() >= limit_; }

  void report(std::string problem) {
    if (!full()) violations_.push_back({path_, std::move(problem)});
  }

  // Runs `fn` with the path extended by `step`, then restores it.
  template <class Fn>
  void descend(std::string_view step, Fn &&fn) {
    const std::size_t length = path_.size();
    path_ += step;
    fn();
    path_.resize(length);
  }

  void check_enum(const json::array &allowed, const json::value &v) {
    for (const auto &candidate : allowed)
      if (json_equal(candidate, v)) return;
    std::string list;
    for (const auto &candidate : allowed) list += (list.empty() ? "" : ", ") + format_value(candidate);
    report("must be one of " + list + ", got " + format_value(v));
  }

  void check_object(const Node &node, const json::object &o) {
    for (const auto &name : node.required)
      if (!o.contains(name)) report("missing required property '" + name + "'");
    for (const auto &entry : o) {
      if (full()) return;
      const std::string step = is_identifier(entry.key())
                                   ? "." + std::string(entry.key())
                                   : "[" + json::serialize(json::value(entry.key())) + "]";
      if (const Node *schema = node.property(entry.key())) {
        descend(step, [&] { check(*schema, entry.value()); });
      } else if (node.additional_schema) {
        descend(step, [&] { check(*node.additional_schema, entry.value()); });
      } else if (node.additional_forbidden) {
        report_unexpected(node, entry.key());
      }
    }
  }

  void report_unexpected(const Node &node, std::string_view key) {
    std::string allowed;
    for (const auto &p : node.properties) allowed += (allowed.empty() ? "" : ", ") + p.name;
    report("unexpected property '" + std::string(key) + "'" +
           (allowed.empty() ? std::string(" (no properties are allowed)")
                            : " (allowed: " + allowed + ")"));
  }

  void check_array(const Node &node, const json::array &a) {
    if (node.min_items && a.size() < *node.min_items)
      report("must have at least " + plural(*node.min_items, "item") + ", got " +
             std::to_string(a.size()));
    if (node.max_items && a.size() > *node.max_items)
      report("must have at most " + plural(*node.max_items, "item") + ", got " +
             std::to_string(a.size()));
    for (std::size_t i = 0; i < a.size() && !full(); ++i) {
      const Node *schema = i < node.tuple_items.size() ? node.tuple_items[i].get()
                           : node.tuple_items.empty()  ? node.items.get()
                                                       : nullptr;
      if (schema) descend("[" + std::to_string(i) + "]", [&] { check(*schema, a[i]); });
    }
  }

  void check_string(const Node &node, std::string_view s) {
    if (node.min_length || node.max_length) {
      const std::size_t length = code_points(s);
      if (node.min_length && length < *node.min_length)
        report("must be at least " + plural(*node.min_length, "character") + " long, got " +
               std::to_string(length));
      if (node.max_length && length > *node.max_length)
        report("must be at most " + plural(*node.max_length, "character") + " long, got " +
               std::to_string(length));
    }
    if (node.pattern) check_pattern(*node.pattern, s);
  }

  void check_pattern(const Node::Pattern &pattern, std::string_view s) {
    try {
      if (!boost::regex_search(s.begin(), s.end(), pattern.regex))
        report("does not match the pattern '" + pattern.source + "'");
    } catch (const std::exception &e) {  // the matcher's complexity limit: fail closed
      report("could not be checked against the pattern '" + pattern.source + "': " + e.what());
    }
  }

  void check_number(const Node &node, const json::value &v) {
    const double x = as_double(v);
    if (const auto &low = node.lower) {
      if (low->exclusive && !(x > low->value))
        report("must be greater than " + format_number(low->value) + ", got " + format_value(v));
      else if (!low->exclusive && !(x >= low->value))
        report("must be at least " + format_number(low->value) + ", got " + format_value(v));
    }
    if (const auto &high = node.upper) {
      if (high->exclusive && !(x < high->value))
        report("must be less than " + format_number(high->value) + ", got " + format_value(v));
      else if (!high->exclusive && !(x <= high->value))
        report("must be at most " + format_number(high->value) + ", got " + format_value(v));
    }
  }

  std::string path_;
  std::size_t limit_;
  std::vector<SchemaViolation> violations_;
};

}  // namespace

std::string SchemaViolation::message() const { return path + ": " + problem; }

JsonSchema::JsonSchema() : root_(std::make_shared<Node>()) {}

JsonSchema::JsonSchema(const json::value &schema) : root_(Compiler().compile(schema, "")) {}

std::vector<SchemaViolation> JsonSchema::validate(const json::value &instance,
                                                  std::string_view root,
                                                  std::size_t max_violations) const {
  Validator validator(root, max_violations);
  validator.check(*root_, instance);
  return validator.take();
}

bool JsonSchema::accepts(const json::value &instance) const {
  return validate(instance, "", 1).empty();
}

std::string describe_violations(const std::vector<SchemaViolation> &violations) {
  std::string text;
  for (const auto &v : violations) text += (text.empty() ? "" : "; ") + v.message();
  return text;
}

}  // namespace amplifier
