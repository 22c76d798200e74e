// Compiling a JSON Schema document into the graph of nodes json_schema.cpp validates with:
// keywords checked, patterns compiled, $refs resolved to nodes, and loops that would never end
// refused.
#include "json_schema_node.hpp"

#include <functional>
#include <limits>
#include <unordered_map>

namespace amplifier::schema_detail {
namespace json = boost::json;
using Node = JsonSchema::Node;

namespace {

// Where a schema sits in the document: as a JSON pointer ("#/properties/a~1b", for messages
// about loops) and as the dotted path compile errors name ("properties.a/b").
struct Location {
  std::string pointer = "#";
  std::string path;

  Location key(std::string_view name) const {
    std::string escaped;
    for (char c : name) {
      if (c == '~')
        escaped += "~0";
      else if (c == '/')
        escaped += "~1";
      else
        escaped += c;
    }
    return {pointer + "/" + escaped,
            path.empty() ? std::string(name) : path + "." + std::string(name)};
  }
  Location index(std::size_t i) const {
    return {pointer + "/" + std::to_string(i), path + "[" + std::to_string(i) + "]"};
  }
  // The path of a keyword of this schema, for an error about the keyword's value.
  std::string keyword(std::string_view name) const { return key(name).path; }
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A URI fragment's %XX escapes decoded; nullopt when one is malformed.
std::optional<std::string> percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_digit(text[i + 1]), low = hex_digit(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// Keywords whose meaning this validator does not implement; ignoring them would accept inputs
// the schema rejects, so such a schema does not compile.
constexpr std::string_view kUnsupportedKeywords[] = {"unevaluatedProperties", "unevaluatedItems",
                                                     "$dynamicRef", "$recursiveRef"};

class Compiler {
 public:
  explicit Compiler(const json::value &document) : document_(document) {
    const json::object *root = document.if_object();
    if (!root) return;
    // Draft 2019-09 and later apply a $ref's sibling keywords; drafts up to 7 ignore them. A
    // schema that does not say its draft gets the later meaning: tool schemas are written for
    // 2020-12 (MCP's default) as often as for draft 7, and it never checks less than written.
    if (const json::value *dialect = root->if_contains("$schema");
        dialect && dialect->is_string()) {
      const std::string_view uri = dialect->get_string();
      for (std::string_view draft : {"draft-03", "draft-04", "draft-06", "draft-07"})
        if (uri.find(draft) != uri.npos) siblings_of_ref_apply_ = false;
    }
    // A $ref may name this document by its $id ("id" in draft 4) instead of starting at '#'.
    for (std::string_view key : {"$id", "id"}) {
      const json::value *id = root->if_contains(key);
      if (!id || !id->is_string()) continue;
      std::string_view uri = id->get_string();
      base_uri_ = std::string(uri.substr(0, uri.find('#')));
      break;
    }
  }

  std::shared_ptr<const Node> run() {
    const Node *root = compile(document_, Location{}, 0);
    // $refs are followed after the tree is compiled, so that compiling recurses only as deep as
    // the document nests, however long a chain of references is.
    while (!pending_refs_.empty()) {
      PendingRef ref = std::move(pending_refs_.back());
      pending_refs_.pop_back();
      try {
        ref.node->ref = compile(*ref.target, ref.location, 0);
      } catch (const ModelError &e) {
        throw ModelError(e.path(), e.problem() + " (reached through " + ref.from + ")");
      }
    }
    refuse_endless_loops();
    auto arena = std::make_shared<std::vector<std::unique_ptr<Node>>>(std::move(nodes_));
    return std::shared_ptr<const Node>(arena, root);  // shares the arena's ownership
  }

 private:
  struct PendingRef {
    Node *node;
    const json::value *target;
    Location location;
    std::string from;  // the $ref's path, for errors in its target
  };

  const Node *compile(const json::value &schema, const Location &at, std::size_t depth) {
    if (auto it = compiled_.find(&schema); it != compiled_.end()) return it->second;
    if (depth > kMaxSchemaDepth)
      throw ModelError(at.path, "the schema nests more than " + std::to_string(kMaxSchemaDepth) +
                                    " levels deep");
    auto owned = std::make_unique<Node>();
    Node &node = *owned;
    node.id = nodes_.size();
    node.location = at.pointer;
    nodes_.push_back(std::move(owned));
    compiled_.emplace(&schema, &node);
    if (schema.is_bool()) {
      node.rejects_everything = !schema.get_bool();
      return &node;
    }
    if (!schema.is_object())
      throw ModelError(at.path, "a schema must be an object or a boolean, got " +
                                    std::string(json_type_name(schema)));
    const json::object &o = schema.get_object();
    if (const json::value *ref = o.if_contains("$ref")) {
      read_ref(node, *ref, at);
      if (!siblings_of_ref_apply_ || o.size() == 1) {
        node.ref_only = true;
        return &node;
      }
    }
    refuse_unsupported(o, at);
    read_types(node, o, at);
    read_object_keywords(node, o, at, depth);
    read_array_keywords(node, o, at, depth);
    read_number_keywords(node, o, at);
    read_string_keywords(node, o, at);
    read_applicators(node, o, at, depth);
    if (const auto *e = o.if_contains("enum")) {
      if (!e->is_array()) throw ModelError(at.keyword("enum"), "must be an array");
      node.enum_values = e->get_array();
    }
    if (const auto *c = o.if_contains("const")) node.const_value = *c;
    return &node;
  }

  const Node *subschema(const json::object &o, std::string_view key, const Location &at,
                        std::size_t depth) {
    const json::value *value = o.if_contains(key);
    return value ? compile(*value, at.key(key), depth + 1) : nullptr;
  }

  std::vector<const Node *> schema_list(const json::value &list, const Location &at,
                                        std::size_t depth) {
    if (!list.is_array() || list.get_array().empty())
      throw ModelError(at.path, "must be a non-empty array of schemas");
    std::vector<const Node *> nodes;
    std::size_t i = 0;
    for (const auto &schema : list.get_array())
      nodes.push_back(compile(schema, at.index(i++), depth + 1));
    return nodes;
  }

  static void refuse_unsupported(const json::object &o, const Location &at) {
    for (std::string_view key : kUnsupportedKeywords) {
      const json::value *value = o.if_contains(key);
      if (value && !(value->is_bool() && value->get_bool()))
        throw ModelError(at.keyword(key), "is not supported, so the schema cannot be checked");
    }
  }

  // $ref: a reference inside this document, "#" or "#/json/pointer". Nothing is ever fetched:
  // a reference to another document does not compile.
  void read_ref(Node &node, const json::value &ref, const Location &at) {
    const std::string ref_path = at.keyword("$ref");
    if (!ref.is_string()) throw ModelError(ref_path, "must be a string");
    const std::string_view text = ref.get_string();
    const std::size_t hash = text.find('#');
    const std::string_view document = text.substr(0, hash);
    if (!document.empty() && document != base_uri_)
      throw ModelError(ref_path, "'" + std::string(text) +
                                     "' refers to another document; only references inside the "
                                     "schema ('#/...') are followed, nothing is fetched");
    const std::string_view fragment = hash == text.npos ? "" : text.substr(hash + 1);
    Location target_at;
    const json::value &target = resolve_pointer(fragment, ref_path, target_at);
    pending_refs_.push_back({&node, &target, std::move(target_at), ref_path});
  }

  // The value a JSON pointer fragment ("" or "/definitions/a") names in the document.
  const json::value &resolve_pointer(std::string_view fragment, const std::string &ref_path,
                                     Location &target_at) const {
    const std::string quoted = "'#" + std::string(fragment) + "'";
    if (!fragment.empty() && fragment[0] != '/')
      throw ModelError(ref_path, quoted +
                                     " names an anchor; only JSON pointers ('#/...') are "
                                     "supported");
    const std::optional<std::string> decoded = percent_decoded(fragment);
    if (!decoded) throw ModelError(ref_path, quoted + " has a malformed %-escape");
    const json::value *at = &document_;
    std::string_view rest = *decoded;
    while (!rest.empty()) {
      rest.remove_prefix(1);  // the '/'
      const std::size_t end = std::min(rest.find('/'), rest.size());
      const std::optional<std::string> token = unescape_token(rest.substr(0, end));
      rest.remove_prefix(end);
      if (!token) throw ModelError(ref_path, quoted + " has a malformed ~-escape");
      at = step(*at, *token, target_at);
      if (!at) throw ModelError(ref_path, quoted + " does not point into the schema");
    }
    return *at;
  }

  static std::optional<std::string> unescape_token(std::string_view token) {
    std::string out;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] != '~') {
        out += token[i];
        continue;
      }
      if (i + 1 == token.size() || (token[i + 1] != '0' && token[i + 1] != '1'))
        return std::nullopt;
      out += token[++i] == '0' ? '~' : '/';
    }
    return out;
  }

  // The member or element `token` names, or nullptr.
  static const json::value *step(const json::value &from, const std::string &token, Location &at) {
    if (const json::object *o = from.if_object()) {
      at = at.key(token);
      return o->if_contains(token);
    }
    const json::array *a = from.if_array();
    if (!a || token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0'))
      return nullptr;
    std::size_t index = 0;
    for (char c : token) {
      if (c < '0' || c > '9') return nullptr;
      index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    if (index >= a->size()) return nullptr;
    at = at.index(index);
    return &(*a)[index];
  }

  static unsigned type_bit(const json::value &name, const std::string &path) {
    if (!name.is_string()) throw ModelError(path, "a type must be a string");
    for (const auto &t : kTypeNames)
      if (t.name == name.get_string()) return t.bit;
    throw ModelError(path, "unknown type '" + std::string(name.get_string()) + "'");
  }

  static void read_types(Node &node, const json::object &o, const Location &at) {
    const json::value *type = o.if_contains("type");
    if (!type) return;
    const std::string path = at.keyword("type");
    if (type->is_array()) {
      for (const auto &name : type->get_array()) node.types |= type_bit(name, path);
      if (node.types == kAnyType) throw ModelError(path, "must name at least one type");
    } else {
      node.types = type_bit(*type, path);
    }
  }

  void read_object_keywords(Node &node, const json::object &o, const Location &at,
                            std::size_t depth) {
    if (const auto *props = o.if_contains("properties")) {
      const Location props_at = at.key("properties");
      if (!props->is_object()) throw ModelError(props_at.path, "must be an object");
      for (const auto &entry : props->get_object()) {
        node.properties.push_back({std::string(entry.key()),
                                   compile(entry.value(), props_at.key(entry.key()), depth + 1)});
      }
    }
    if (const auto *patterns = o.if_contains("patternProperties")) {
      const Location patterns_at = at.key("patternProperties");
      if (!patterns->is_object()) throw ModelError(patterns_at.path, "must be an object");
      for (const auto &entry : patterns->get_object()) {
        const Location entry_at = patterns_at.key(entry.key());
        node.pattern_properties.push_back(
            {regex(entry.key(), entry_at.path), compile(entry.value(), entry_at, depth + 1)});
      }
    }
    if (const auto *extra = o.if_contains("additionalProperties")) {
      if (extra->is_bool())
        node.additional_forbidden = !extra->get_bool();
      else
        node.additional_properties = compile(*extra, at.key("additionalProperties"), depth + 1);
    }
    if (const auto *req = o.if_contains("required"))
      node.required = names(*req, at.keyword("required"));
    node.property_names = subschema(o, "propertyNames", at, depth);
    node.min_properties = count(o, "minProperties", at);
    node.max_properties = count(o, "maxProperties", at);
    read_dependencies(node, o, at, depth);
  }

  // dependencies (draft 7: an array of names or a schema per property), dependentRequired and
  // dependentSchemas (2019-09: the two forms split).
  void read_dependencies(Node &node, const json::object &o, const Location &at, std::size_t depth) {
    for (std::string_view keyword : {"dependencies", "dependentRequired", "dependentSchemas"}) {
      const json::value *map = o.if_contains(keyword);
      if (!map) continue;
      const Location map_at = at.key(keyword);
      if (!map->is_object()) throw ModelError(map_at.path, "must be an object");
      for (const auto &entry : map->get_object()) {
        const Location entry_at = map_at.key(entry.key());
        const bool names_form = keyword == "dependentRequired" ||
                                (keyword == "dependencies" && entry.value().is_array());
        if (names_form)
          node.dependent_required.push_back(
              {std::string(entry.key()), names(entry.value(), entry_at.path)});
        else
          node.dependent_schemas.push_back(
              {std::string(entry.key()), compile(entry.value(), entry_at, depth + 1)});
      }
    }
  }

  static std::vector<std::string> names(const json::value &list, const std::string &path) {
    if (!list.is_array()) throw ModelError(path, "must be an array of property names");
    std::vector<std::string> out;
    for (const auto &name : list.get_array()) {
      if (!name.is_string()) throw ModelError(path, "must be an array of property names");
      out.emplace_back(name.get_string());
    }
    return out;
  }

  // items and additionalItems (draft 7: items is a schema for every item or an array of
  // schemas position by position, additionalItems then checks the rest), prefixItems
  // (2020-12: the positions; items then checks the rest).
  void read_array_keywords(Node &node, const json::object &o, const Location &at,
                           std::size_t depth) {
    const json::value *items = o.if_contains("items");
    const json::value *prefix = o.if_contains("prefixItems");
    if (items && items->is_array()) {
      node.prefix_items = positional(*items, at.key("items"), depth);
      node.rest_items = subschema(o, "additionalItems", at, depth);
    } else {
      if (prefix) node.prefix_items = positional(*prefix, at.key("prefixItems"), depth);
      node.rest_items = subschema(o, "items", at, depth);
    }
    node.min_items = count(o, "minItems", at);
    node.max_items = count(o, "maxItems", at);
    if (const auto *unique = o.if_contains("uniqueItems")) {
      if (!unique->is_bool()) throw ModelError(at.keyword("uniqueItems"), "must be a boolean");
      node.unique_items = unique->get_bool();
    }
    node.contains = subschema(o, "contains", at, depth);
    node.min_contains = count(o, "minContains", at);
    node.max_contains = count(o, "maxContains", at);
  }

  std::vector<const Node *> positional(const json::value &list, const Location &at,
                                       std::size_t depth) {
    if (!list.is_array()) throw ModelError(at.path, "must be an array of schemas");
    std::vector<const Node *> nodes;
    std::size_t i = 0;
    for (const auto &schema : list.get_array())
      nodes.push_back(compile(schema, at.index(i++), depth + 1));
    return nodes;
  }

  static void read_number_keywords(Node &node, const json::object &o, const Location &at) {
    // Draft 4 wrote `"minimum": 0, "exclusiveMinimum": true`; later drafts write
    // `"exclusiveMinimum": 0`. Tool schemas in the wild use both.
    node.lower = bound(o, "minimum", "exclusiveMinimum", at, std::greater<>());
    node.upper = bound(o, "maximum", "exclusiveMaximum", at, std::less<>());
    if (const json::value *divisor = o.if_contains("multipleOf")) {
      const double d = number(*divisor, at.keyword("multipleOf"));
      if (!(d > 0) || !std::isfinite(d))
        throw ModelError(at.keyword("multipleOf"), "must be a number greater than 0");
      node.multiple_of = d;
    }
  }

  template <class Stricter>
  static std::optional<Node::Bound> bound(const json::object &o, std::string_view inclusive_key,
                                          std::string_view exclusive_key, const Location &at,
                                          Stricter stricter) {
    std::optional<Node::Bound> result;
    const json::value *inclusive = o.if_contains(inclusive_key);
    if (inclusive) result = Node::Bound{number(*inclusive, at.keyword(inclusive_key)), false};
    const json::value *exclusive = o.if_contains(exclusive_key);
    if (!exclusive) return result;
    if (exclusive->is_bool()) {
      if (exclusive->get_bool() && result) result->exclusive = true;
      return result;
    }
    const double limit = number(*exclusive, at.keyword(exclusive_key));
    // Both given: the stricter one decides (an exclusive limit equal to the inclusive one is
    // stricter).
    if (!result || stricter(limit, result->value) || limit == result->value)
      result = Node::Bound{limit, true};
    return result;
  }

  static void read_string_keywords(Node &node, const json::object &o, const Location &at) {
    node.min_length = count(o, "minLength", at);
    node.max_length = count(o, "maxLength", at);
    const json::value *pattern = o.if_contains("pattern");
    if (!pattern) return;
    const std::string path = at.keyword("pattern");
    if (!pattern->is_string()) throw ModelError(path, "must be a string");
    node.pattern = regex(pattern->get_string(), path);
  }

  static Pattern regex(std::string_view source, const std::string &path) {
    try {
      return Pattern{std::string(source),
                     boost::regex(source.begin(), source.end(), boost::regex::ECMAScript)};
    } catch (const std::exception &e) {
      throw ModelError(path,
                       "invalid regular expression '" + std::string(source) + "': " + e.what());
    }
  }

  void read_applicators(Node &node, const json::object &o, const Location &at, std::size_t depth) {
    if (const auto *list = o.if_contains("allOf"))
      node.all_of = schema_list(*list, at.key("allOf"), depth);
    if (const auto *list = o.if_contains("anyOf"))
      node.any_of = schema_list(*list, at.key("anyOf"), depth);
    if (const auto *list = o.if_contains("oneOf"))
      node.one_of = schema_list(*list, at.key("oneOf"), depth);
    node.not_schema = subschema(o, "not", at, depth);
    // then and else mean nothing without if (draft 7, 6.6.2 and 6.6.3).
    node.if_schema = subschema(o, "if", at, depth);
    if (node.if_schema) {
      node.then_schema = subschema(o, "then", at, depth);
      node.else_schema = subschema(o, "else", at, depth);
    }
  }

  static double number(const json::value &v, const std::string &path) {
    if (!v.is_number()) throw ModelError(path, "must be a number");
    return as_double(v);
  }

  static std::optional<std::size_t> count(const json::object &o, std::string_view key,
                                          const Location &at) {
    const json::value *v = o.if_contains(key);
    if (!v) return std::nullopt;
    if (!is_integral_number(*v) || as_double(*v) < 0)
      throw ModelError(at.keyword(key), "must be a non-negative integer");
    // A count past what size_t holds (e.g. minLength 1e30) cannot be met or broken by any
    // instance in memory; converting it would be undefined behaviour (found by fuzzing).
    const double n = as_double(*v);
    if (n >= 18446744073709551616.0) return std::numeric_limits<std::size_t>::max();
    return static_cast<std::size_t>(n);
  }

  // Refuses a loop of subschemas that all apply to the same value ({"$ref": "#"}, or two
  // definitions whose allOf name each other): validating would recurse without end.
  void refuse_endless_loops() const {
    enum class Mark : char { kUnseen, kOnPath, kDone };
    std::vector<Mark> marks(nodes_.size(), Mark::kUnseen);
    struct Frame {
      const Node *node;
      std::vector<const Node *> next;
      std::size_t visited = 0;
    };
    auto frame_of = [](const Node &node) {
      Frame frame{&node, {}};
      node.for_each_same_value_schema([&](const Node &next) { frame.next.push_back(&next); });
      return frame;
    };
    for (const auto &start : nodes_) {
      if (marks[start->id] != Mark::kUnseen) continue;
      std::vector<Frame> path{frame_of(*start)};  // iterative: a chain may be long
      marks[start->id] = Mark::kOnPath;
      while (!path.empty()) {
        Frame &top = path.back();
        if (top.visited == top.next.size()) {
          marks[top.node->id] = Mark::kDone;
          path.pop_back();
          continue;
        }
        const Node *next = top.next[top.visited++];
        if (marks[next->id] == Mark::kOnPath) throw loop_error(path, *next);
        if (marks[next->id] == Mark::kUnseen) {
          marks[next->id] = Mark::kOnPath;
          path.push_back(frame_of(*next));
        }
      }
    }
  }

  template <class Frames>
  static ModelError loop_error(const Frames &path, const Node &back_to) {
    std::string loop;
    bool in_loop = false;
    for (const auto &frame : path) {
      in_loop = in_loop || frame.node == &back_to;
      if (in_loop) loop += frame.node->location + " -> ";
    }
    return ModelError("", "the schema loops back to itself without descending into the value: " +
                              loop + back_to.location);
  }

  const json::value &document_;
  bool siblings_of_ref_apply_ = true;
  std::string base_uri_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<const json::value *, const Node *> compiled_;
  std::vector<PendingRef> pending_refs_;
};

}  // namespace

std::shared_ptr<const Node> compile(const json::value &schema) { return Compiler(schema).run(); }

}  // namespace amplifier::schema_detail
