#include "amplifier/json_schema.hpp"

#include "json_schema_node.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/serializer.hpp>

#include <cfloat>
#include <charconv>
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace amplifier {
namespace json = boost::json;
using namespace schema_detail;
using Node = JsonSchema::Node;

namespace {

// How many steps one validate() may take: each subschema checked against a value is one, and a
// container or string costs its size. A schema may multiply the work exponentially (an allOf
// of two $refs back to the root, applied to a deeply nested array); past this budget the
// validator gives up and rejects the input rather than hang.
constexpr std::size_t kMaxSteps = 1'000'000;

bool has_type(const json::value &v, unsigned types) {
  if (types == kAnyType) return true;
  switch (v.kind()) {
    case json::kind::string:
      return types & kString;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return (types & kNumber) || ((types & kInteger) && is_integral_number(v));
    case json::kind::bool_:
      return types & kBoolean;
    case json::kind::object:
      return types & kObject;
    case json::kind::array:
      return types & kArray;
    case json::kind::null:
      return types & kNull;
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

// Messages quote values, property names and nested messages, any of which may be as large as
// the input: each quotation is cut to at most this many bytes.
constexpr std::size_t kMaxQuoted = 120;

// `text` cut to `max` bytes at a UTF-8 character boundary, "..." marking the cut.
std::string abbreviated(std::string_view text, std::size_t max = kMaxQuoted) {
  if (text.size() <= max) return std::string(text);
  std::size_t end = max - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

// A value as JSON text, abbreviated; only the part shown is serialized.
std::string format_value(const json::value &v) {
  if (v.is_number()) return format_number(as_double(v));
  json::serializer serializer;
  serializer.reset(&v);
  char text[kMaxQuoted + 1];
  const std::string_view start = serializer.read(text, sizeof text);
  return abbreviated(start);
}

// Equality as JSON Schema defines it for enum, const and uniqueItems: numbers compare by value
// (1 == 1.0).
// A NaN equals a NaN, so that every value equals itself: Boost.JSON 1.81 reads "0e400" as NaN
// (found by fuzzing: {"const": 0e400} rejected 0e400).
bool json_equal(const json::value &a, const json::value &b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() && b.is_double() && std::isnan(a.get_double()))
      return std::isnan(b.get_double());
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

// A hash that agrees with json_equal: equal values hash alike (numbers by their double value,
// objects whatever their key order).
std::size_t json_hash(const json::value &v) {
  switch (v.kind()) {
    case json::kind::null:
      return 0x51ed27;
    case json::kind::bool_:
      return v.get_bool() ? 0x2b1 : 0x2b0;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: {
      const double d = as_double(v);
      if (std::isnan(d)) return 0x7ff8;              // whatever its sign and payload
      return std::hash<double>{}(d == 0 ? 0.0 : d);  // -0.0 == 0.0
    }
    case json::kind::string:
      return std::hash<std::string_view>{}(v.get_string());
    case json::kind::array: {
      std::size_t h = 0xa7;
      for (const auto &item : v.get_array()) h = h * 1000003 ^ json_hash(item);
      return h;
    }
    case json::kind::object: {
      std::size_t h = 0x0b;
      for (const auto &entry : v.get_object())  // a sum: the order of the keys does not count
        h += (std::hash<std::string_view>{}(entry.key()) * 31 + json_hash(entry.value())) *
             0x9e3779b97f4a7c15ull;
      return h;
    }
  }
  return 0;
}

// Whether x is a whole multiple of divisor (> 0). Integers are checked exactly; other numbers by
// whether their quotient is whole, within the rounding error of the division.
bool is_multiple(const json::value &x, double divisor) {
  if ((x.is_int64() || x.is_uint64()) && std::trunc(divisor) == divisor && divisor < 9.2e18) {
    const auto d = static_cast<std::uint64_t>(divisor);
    const std::uint64_t magnitude =
        x.is_uint64() ? x.get_uint64()
        : x.get_int64() < 0
            ? static_cast<std::uint64_t>(-(x.get_int64() + 1)) + 1  // |INT64_MIN| fits
            : static_cast<std::uint64_t>(x.get_int64());
    return magnitude % d == 0;
  }
  const double quotient = as_double(x) / divisor;
  if (!std::isfinite(quotient)) return false;
  const double error = std::fabs(quotient - std::nearbyint(quotient));
  return error <= std::max(1e-9, 4 * DBL_EPSILON * std::fabs(quotient));
}

std::size_t code_points(std::string_view text) {
  std::size_t count = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++count;  // every byte that does not continue a sequence
  return count;
}

// Whether a property name can follow a dot in a path ("input.path") rather than needing
// brackets ("input[\"odd key\"]"). ASCII tests, not std::isalnum: this runs for every property
// of every input, and the libc call was a quarter of validating one.
bool is_identifier(std::string_view key) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (key.empty() || digit(key[0])) return false;
  for (char c : key)
    if (!letter(c) && !digit(c)) return false;
  return true;
}

std::string plural(std::size_t n, std::string_view word) {
  if (n == 1) return "1 " + std::string(word);
  if (word.ends_with('y'))
    return std::to_string(n) + " " + std::string(word.substr(0, word.size() - 1)) + "ies";
  return std::to_string(n) + " " + std::string(word) + "s";
}

std::string quote_text(std::string_view text) { return "'" + abbreviated(text) + "'"; }

// The schema a pure {"$ref": ...} stands for.
const Node &followed(const Node &node) {
  const Node *n = &node;
  for (std::size_t hops = 0; n->ref_only && hops < kMaxCheckDepth; ++hops) n = n->ref;
  return *n;
}

// Thrown when a check cannot finish (too many steps, too deep); validate() turns it into a
// violation at the root, so such an input is rejected, never half-checked and accepted.
struct GiveUp {
  std::string problem;
};

// The state all validators of one validate() call share.
struct Budget {
  std::size_t steps_left = kMaxSteps;
};

// Walks an instance beside its schema, collecting violations. The path of the value being
// checked is built in one string, grown on the way down and cut back on the way up. anyOf,
// oneOf, not, if and contains ask a nested Validator whether a value matches, sharing the
// budget and the depth.
class Validator {
 public:
  Validator(std::string path, std::size_t limit, Budget &budget, std::size_t depth)
      : path_(std::move(path)), limit_(limit), budget_(budget), depth_(depth) {}

  std::vector<SchemaViolation> take() { return std::move(violations_); }

  void check(const Node &node, const json::value &v) {
    if (full()) return;
    spend(1);
    if (++depth_ > kMaxCheckDepth) give_up_too_deep();
    check_keywords(node, v);
    --depth_;
  }

 private:
  bool full() const { return violations_.size() >= limit_; }

  void spend(std::size_t steps) {
    if (steps > budget_.steps_left) give_up_too_costly();
    budget_.steps_left -= steps;
  }

  [[noreturn, gnu::noinline]] static void give_up_too_deep() {
    throw GiveUp{"could not be checked: the value and the schema nest more than " +
                 std::to_string(kMaxCheckDepth) + " levels deep"};
  }

  [[noreturn, gnu::noinline]] static void give_up_too_costly() {
    throw GiveUp{"could not be checked: it takes more than " + std::to_string(kMaxSteps) +
                 " steps against this schema (too large an input, or too intricate a schema)"};
  }

  void report(std::string problem) {
    if (!full()) violations_.push_back({path_, std::move(problem)});
  }

  // STACK: check() recurses once per level of the value and per $ref, allOf, ... on the way,
  // so the functions on that path keep small frames: building a message (string temporaries,
  // which ASan pads to kilobytes a frame) happens in NOINLINE leaves that return before the next
  // level is checked.
#define NOINLINE [[gnu::noinline]]

  // Checks the member `key` of the current object, the path extended by ".key" or
  // "[\"odd key\"]" meanwhile.
  void check_member(const Node &schema, std::string_view key, const json::value &value) {
    const std::size_t length = path_.size();
    append_key(key);
    check(schema, value);
    path_.resize(length);
  }

  void check_item(const Node &schema, std::size_t index, const json::value &value) {
    const std::size_t length = path_.size();
    append_index(index);
    check(schema, value);
    path_.resize(length);
  }

  NOINLINE void append_key(std::string_view key) {
    if (is_identifier(key))
      (path_ += '.') += key;
    else
      (path_ += '[') += json::serialize(json::value(key)) += ']';
  }

  NOINLINE void append_index(std::size_t index) { (path_ += '[') += std::to_string(index) += ']'; }

  // The first violation of `v` against `node`, checked on the side; nullopt when it matches.
  std::optional<SchemaViolation> first_violation(const Node &node, const json::value &v) {
    Validator nested(path_, 1, budget_, depth_);
    nested.check(node, v);
    if (nested.violations_.empty()) return std::nullopt;
    return std::move(nested.violations_[0]);
  }

  NOINLINE bool matches(const Node &node, const json::value &v) {
    return !first_violation(node, v);
  }

  void check_keywords(const Node &node, const json::value &v) {
    if (node.rejects_everything) return report_nothing_allowed();
    if (node.ref_only) return check(*node.ref, v);
    if (!has_type(v, node.types)) return report_type(node.types, v);
    if (node.enum_values) check_enum(*node.enum_values, v);
    if (node.const_value) check_const(*node.const_value, v);
    switch (v.kind()) {
      case json::kind::object:
        check_object(node, v);
        break;
      case json::kind::array:
        check_array(node, v.get_array());
        break;
      case json::kind::string:
        check_string(node, v.get_string());
        break;
      case json::kind::int64:
      case json::kind::uint64:
      case json::kind::double_:
        check_number(node, v);
        break;
      default:
        break;
    }
    check_applicators(node, v);
  }

  NOINLINE void report_nothing_allowed() { report("no value is allowed here"); }

  NOINLINE void report_type(unsigned types, const json::value &v) {
    report("expected " + describe_types(types) + ", got " + std::string(json_type_name(v)));
  }

  NOINLINE void check_const(const json::value &wanted, const json::value &v) {
    if (!json_equal(wanted, v))
      report("must be " + format_value(wanted) + ", got " + format_value(v));
  }

  NOINLINE void check_enum(const json::array &allowed, const json::value &v) {
    spend(allowed.size());
    for (const auto &candidate : allowed)
      if (json_equal(candidate, v)) return;
    std::string list;
    for (const auto &candidate : allowed)
      list += (list.empty() ? "" : ", ") + format_value(candidate);
    report("must be one of " + list + ", got " + format_value(v));
  }

  void check_object(const Node &node, const json::value &value) {
    const json::object &o = value.get_object();
    spend(o.size());
    check_object_counts(node, o);
    for (const auto &entry : o) {
      if (full()) return;
      check_property(node, entry.key(), entry.value());
    }
    if (node.property_names) check_property_names(*node.property_names, o);
    for (const auto &dependency : node.dependent_schemas)
      if (o.contains(dependency.name)) check(*dependency.schema, value);
  }

  // required, dependencies' property lists, minProperties, maxProperties.
  NOINLINE void check_object_counts(const Node &node, const json::object &o) {
    for (const auto &name : node.required)
      if (!o.contains(name)) report("missing required property '" + name + "'");
    for (const auto &dependency : node.dependent_required) {
      if (!o.contains(dependency.name)) continue;
      for (const auto &name : dependency.required)
        if (!o.contains(name))
          report("property " + quote_text(dependency.name) + " requires property " + quote_text(name));
    }
    if (node.min_properties && o.size() < *node.min_properties)
      report("must have at least " + plural(*node.min_properties, "property") + ", got " +
             std::to_string(o.size()));
    if (node.max_properties && o.size() > *node.max_properties)
      report("must have at most " + plural(*node.max_properties, "property") + ", got " +
             std::to_string(o.size()));
  }

  // One property against properties, patternProperties and additionalProperties.
  void check_property(const Node &node, std::string_view key, const json::value &value) {
    bool described = false;  // named by properties or matched by patternProperties
    if (const Node *schema = node.property(key)) {
      described = true;
      check_member(*schema, key, value);
    }
    for (const auto &pattern : node.pattern_properties) {
      switch (match_name(pattern.pattern, key)) {
        case Match::kNo:
          continue;
        case Match::kUnknown:
          described = true;
          continue;
        case Match::kYes:
          described = true;
          check_member(*pattern.schema, key, value);
      }
    }
    if (described) return;
    if (node.additional_properties)
      check_member(*node.additional_properties, key, value);
    else if (node.additional_forbidden)
      report_unexpected(node, key);
  }

  enum class Match { kNo, kYes, kUnknown };

  // Whether a property name matches a patternProperties pattern; kUnknown (reported) when the
  // matcher gave up: the name is then taken as checked, and the object as invalid.
  NOINLINE Match match_name(const Node::Pattern &pattern, std::string_view key) {
    try {
      return boost::regex_search(key.begin(), key.end(), pattern.regex) ? Match::kYes : Match::kNo;
    } catch (const std::exception &e) {  // the matcher's complexity limit: fail closed
      report("property " + quote_text(key) + " could not be checked against the pattern " +
             quote_text(pattern.source) + ": " + e.what());
      return Match::kUnknown;
    }
  }

  NOINLINE void report_unexpected(const Node &node, std::string_view key) {
    std::string allowed;
    for (const auto &p : node.properties) allowed += (allowed.empty() ? "" : ", ") + p.name;
    for (const auto &p : node.pattern_properties)
      allowed +=
          (allowed.empty() ? "names matching " : ", names matching ") + quote_text(p.pattern.source);
    report("unexpected property " + quote_text(key) +
           (allowed.empty() ? std::string(" (no properties are allowed)")
                            : " (allowed: " + allowed + ")"));
  }

  NOINLINE void check_property_names(const Node &names, const json::object &o) {
    for (const auto &entry : o) {
      if (full()) return;
      if (auto violation = first_violation(names, json::value(entry.key())))
        report("property name " + quote_text(entry.key()) + " is not allowed: " + violation->problem);
    }
  }

  void check_array(const Node &node, const json::array &a) {
    spend(a.size());
    check_array_counts(node, a);
    const bool rest_forbidden = node.rest_items && node.rest_items->rejects_everything;
    const std::size_t checked =
        rest_forbidden ? std::min(a.size(), node.prefix_items.size()) : a.size();
    for (std::size_t i = 0; i < checked && !full(); ++i) {
      const Node *schema = i < node.prefix_items.size() ? node.prefix_items[i] : node.rest_items;
      if (schema) check_item(*schema, i, a[i]);
    }
    if (node.unique_items) check_unique(a);
    if (node.contains) check_contains(node, a);
  }

  // minItems, maxItems, and items past the positional ones where no others are allowed.
  NOINLINE void check_array_counts(const Node &node, const json::array &a) {
    if (node.min_items && a.size() < *node.min_items)
      report("must have at least " + plural(*node.min_items, "item") + ", got " +
             std::to_string(a.size()));
    if (node.max_items && a.size() > *node.max_items)
      report("must have at most " + plural(*node.max_items, "item") + ", got " +
             std::to_string(a.size()));
    const bool rest_forbidden = node.rest_items && node.rest_items->rejects_everything;
    if (rest_forbidden && a.size() > node.prefix_items.size())
      report("must have at most " + plural(node.prefix_items.size(), "item") + ", got " +
             std::to_string(a.size()));
  }

  NOINLINE void check_unique(const json::array &a) {
    std::unordered_multimap<std::size_t, std::size_t> seen;  // hash -> index
    for (std::size_t j = 0; j < a.size(); ++j) {
      const std::size_t hash = json_hash(a[j]);
      auto [begin, end] = seen.equal_range(hash);
      for (auto it = begin; it != end; ++it) {
        if (json_equal(a[it->second], a[j]))
          return report("must not repeat items: [" + std::to_string(it->second) + "] and [" +
                        std::to_string(j) + "] are equal");
      }
      seen.emplace(hash, j);
    }
  }

  // contains, with minContains and maxContains (2019-09) bounding how many items match.
  NOINLINE void check_contains(const Node &node, const json::array &a) {
    const std::size_t at_least = node.min_contains.value_or(1);
    std::size_t found = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      found += matches(*node.contains, a[i]) ? 1 : 0;
      if (found >= at_least && !node.max_contains) return;
    }
    if (found < at_least)
      return report(at_least == 1
                        ? "must contain an item that matches the 'contains' schema"
                        : "must contain at least " + plural(at_least, "item") +
                              " that match the 'contains' schema, got " + std::to_string(found));
    if (node.max_contains && found > *node.max_contains)
      report("must contain at most " + plural(*node.max_contains, "item") +
             " that match the 'contains' schema, got " + std::to_string(found));
  }

  NOINLINE void check_string(const Node &node, std::string_view s) {
    if (!node.min_length && !node.max_length && !node.pattern) return;
    spend(s.size() / 64);  // counting and matching read the whole string
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

  NOINLINE void check_pattern(const Node::Pattern &pattern, std::string_view s) {
    try {
      if (!boost::regex_search(s.begin(), s.end(), pattern.regex))
        report("does not match the pattern '" + pattern.source + "'");
    } catch (const std::exception &e) {  // the matcher's complexity limit: fail closed
      report("could not be checked against the pattern '" + pattern.source + "': " + e.what());
    }
  }

  NOINLINE void check_number(const Node &node, const json::value &v) {
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
    if (node.multiple_of && !is_multiple(v, *node.multiple_of))
      report("must be a multiple of " + format_number(*node.multiple_of) + ", got " +
             format_value(v));
  }

  // $ref (with siblings, 2019-09 on), allOf, anyOf, oneOf, not, if/then/else. The subschemas
  // of $ref, allOf, then and else report their own violations, at the paths where they occur.
  void check_applicators(const Node &node, const json::value &v) {
    if (node.ref) check(*node.ref, v);
    for (const Node *schema : node.all_of) check(*schema, v);
    if (!node.any_of.empty()) check_any_of(node.any_of, v);
    if (!node.one_of.empty()) check_one_of(node.one_of, v);
    if (node.not_schema && matches(*node.not_schema, v)) report_not();
    if (node.if_schema) {
      const Node *branch = matches(*node.if_schema, v) ? node.then_schema : node.else_schema;
      if (branch) check(*branch, v);
    }
  }

  NOINLINE void report_not() { report("must not match the schema under 'not'"); }

  NOINLINE void check_any_of(const std::vector<const Node *> &alternatives, const json::value &v) {
    std::vector<SchemaViolation> failures;
    for (const Node *schema : alternatives) {
      auto violation = first_violation(*schema, v);
      if (!violation) return;
      failures.push_back(std::move(*violation));
    }
    report(none_matched("anyOf", alternatives, failures, v));
  }

  NOINLINE void check_one_of(const std::vector<const Node *> &alternatives, const json::value &v) {
    std::vector<SchemaViolation> failures;
    std::vector<std::size_t> matched;
    for (std::size_t i = 0; i < alternatives.size() && matched.size() < 2; ++i) {
      if (auto violation = first_violation(*alternatives[i], v))
        failures.push_back(std::move(*violation));
      else
        matched.push_back(i);
    }
    if (matched.empty()) return report(none_matched("oneOf", alternatives, failures, v));
    if (matched.size() > 1)
      report("must match exactly one schema of oneOf, but matches [" + std::to_string(matched[0]) +
             "] and [" + std::to_string(matched[1]) + "]");
  }

  // "expected string or null, got number" when every alternative wants another type (the
  // shape of an optional field); otherwise each alternative's first violation.
  std::string none_matched(std::string_view keyword, const std::vector<const Node *> &alternatives,
                           const std::vector<SchemaViolation> &failures,
                           const json::value &v) const {
    unsigned wanted = kAnyType;
    bool all_type_mismatches = true;
    for (const Node *schema : alternatives) {
      const Node &target = followed(*schema);
      if (target.ref_only || target.types == kAnyType || has_type(v, target.types))
        all_type_mismatches = false;
      wanted |= target.types;
    }
    if (all_type_mismatches)
      return "expected " + describe_types(wanted) + ", got " + std::string(json_type_name(v));
    constexpr std::size_t kShown = 4;
    std::string text = "matches no schema of " + std::string(keyword) + " (";
    for (std::size_t i = 0; i < failures.size() && i < kShown; ++i) {
      const auto &f = failures[i];
      text += (i ? "; [" : "[") + std::to_string(i) + "] " +
              abbreviated(f.path == path_ ? f.problem : f.message(), 2 * kMaxQuoted);
    }
    if (failures.size() > kShown) text += "; " + std::to_string(failures.size() - kShown) + " more";
    return text + ")";
  }

#undef NOINLINE

  std::string path_;
  std::size_t limit_;
  Budget &budget_;
  std::size_t depth_;
  std::vector<SchemaViolation> violations_;
};

}  // namespace

std::string SchemaViolation::message() const { return path + ": " + problem; }

JsonSchema::JsonSchema() : root_(compile(json::value(true))) {}

JsonSchema::JsonSchema(const json::value &schema) : root_(compile(schema)) {}

std::vector<SchemaViolation> JsonSchema::validate(const json::value &instance,
                                                  std::string_view root,
                                                  std::size_t max_violations) const {
  Budget budget;
  Validator validator(std::string(root), max_violations, budget, 0);
  try {
    validator.check(*root_, instance);
  } catch (const GiveUp &gave_up) {
    auto violations = validator.take();
    if (violations.size() < max_violations)
      violations.push_back({std::string(root), gave_up.problem});
    return violations;
  }
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
