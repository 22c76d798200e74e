// Mount plans: YAML -> MountPlan, validating everything and reporting every problem at once.
//
// Scalar typing. Config values become JSON with the YAML 1.2 core schema: plain scalars are
// null (null, Null, NULL, ~, empty), booleans (true/false in three casings), integers
// (decimal, 0o octal, 0x hex), floats (incl. .inf, -.inf, .nan), otherwise strings. Quoted
// and block scalars, and scalars tagged !!str, stay strings.
//
// ${VAR} expansion happens before typing, so a plain `port: ${PORT:-8080}` is the number 8080
// and `debug: ${DEBUG:-false}` a boolean, as if the value had been written there; quote it
// ("${PORT:-8080}") to keep a string. One exception: a plain scalar that expands to nothing
// (an unset variable, with a warning) is the empty string, not null, because what was written
// there was a value. The `agents` section is passed through untouched: typed, not expanded.
// (Inside flow collections, [..] and {..}, YAML itself requires ${...} to be quoted.)
#include "amplifier/mount_plan.hpp"
#include "amplifier/module_sources.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include "amplifier/yaml_cpp.hpp"
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <span>
#include <sstream>
#include <utility>

namespace amplifier {
namespace json = boost::json;

namespace {

// ---- YAML 1.2 core schema ------------------------------------------------------------------

std::optional<std::int64_t> parse_int64(std::string_view digits, int base) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_uint64(std::string_view digits, int base) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// An integer literal: int64 when it fits, else uint64. Beyond 64 bits a decimal becomes an
// approximate double; octal and hex digits have no such reading, so they stay text.
json::value integer_value(std::string_view text, int base) {
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  if (base != 10) digits.remove_prefix(2);  // "0o" / "0x"
  if (auto magnitude = parse_uint64(digits, base)) {
    if (!negative) {
      if (*magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(*magnitude);
      return *magnitude;
    }
    if (auto value = parse_int64("-" + std::string(digits), base)) return *value;
  }
  if (base != 10) return json::string(text);
  return std::strtod(std::string(text).c_str(), nullptr);
}

json::value core_schema_value(std::string_view text) {
  static const std::regex decimal(R"([-+]?[0-9]+)");
  static const std::regex octal(R"(0o[0-7]+)");
  static const std::regex hexadecimal(R"(0x[0-9a-fA-F]+)");
  static const std::regex floating(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  static const std::regex infinity(R"([-+]?\.(inf|Inf|INF))");
  static const std::regex not_a_number(R"(\.(nan|NaN|NAN))");

  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  // Cheap pre-check: every number starts with a sign, a digit or a dot.
  const char first = text.front();
  if (!(std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' || first == '.'))
    return json::string(text);
  const std::string s(text);
  if (std::regex_match(s, decimal)) return integer_value(text, 10);
  if (std::regex_match(s, octal)) return integer_value(text, 8);
  if (std::regex_match(s, hexadecimal)) return integer_value(text, 16);
  if (std::regex_match(s, floating)) return std::strtod(s.c_str(), nullptr);
  if (std::regex_match(s, infinity))
    return first == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (std::regex_match(s, not_a_number)) return std::numeric_limits<double>::quiet_NaN();
  return json::string(text);
}

std::string_view describe_kind(const json::value &v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "a boolean";
    case json::kind::int64:
    case json::kind::uint64: return "an integer";
    case json::kind::double_: return "a number";
    case json::kind::string: return "a string";
    case json::kind::array: return "a list";
    case json::kind::object: return "a map";
  }
  return "a value";
}

std::string_view describe_node(const YAML::Node &node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "null";
    default: return "a scalar";
  }
}

// ---- keys and suggestions --------------------------------------------------------------------

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (std::tolower(a[i - 1]) != std::tolower(b[j - 1]));
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

std::string unknown_key_message(std::string_view key, std::span<const std::string_view> known) {
  std::string_view closest;
  std::size_t best = 3;  // suggest only within edit distance 2
  for (auto candidate : known) {
    const std::size_t distance = edit_distance(key, candidate);
    if (distance < best) best = distance, closest = candidate;
  }
  std::string message = fmt::format("unknown key '{}' (ignored)", key);
  if (!closest.empty()) message += fmt::format("; did you mean '{}'?", closest);
  return message;
}

using module_sources::is_valid_module_id;

std::string child_path(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string item_path(const std::string &path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

// Names in `routing` that are not providers of the plan: {key, message} each.
std::vector<std::pair<std::string, std::string>> routing_problems(const MountPlan &plan) {
  std::vector<std::pair<std::string, std::string>> problems;
  for (const auto &[role, list] : plan.routing) {
    if (!list.is_array()) continue;  // reported when read
    for (const auto &name : list.get_array()) {
      if (!name.is_string()) continue;
      const std::string_view wanted = name.get_string();
      const bool mounted = std::any_of(plan.providers.begin(), plan.providers.end(),
                                       [&](const ModuleSpec &p) { return p.mount_name() == wanted; });
      if (!mounted)
        problems.emplace_back("routing." + std::string(role),
                              fmt::format("'{}' is not a provider of this plan", wanted));
    }
  }
  return problems;
}

// ---- the parser ------------------------------------------------------------------------------

constexpr std::array<std::string_view, 7> kTopLevelKeys = {
    "session", "providers", "tools", "hooks", "agents", "includes", "routing"};
constexpr std::array<std::string_view, 9> kModuleKeys = {
    "module",    "source",          "config",              "required",      "timeout",
    "isolation", "memory_limit_mb", "restarts_per_minute", "max_message_mb"};
constexpr std::array<std::string_view, 10> kProviderKeys = {
    "module",  "source",    "config",          "required",            "instance_id",
    "timeout", "isolation", "memory_limit_mb", "restarts_per_minute", "max_message_mb"};
// Aliases make a small file describe an exponentially large tree; stop long before memory does.
constexpr std::size_t kMaxConvertedNodes = 1'000'000;
// A node count alone lets a few aliases of one large scalar through: a 1 MiB plan whose
// aliases repeat a 100 KiB string made 1.1 GB. The text the values add up to is capped too.
constexpr std::size_t kMaxConvertedBytes = 64 * 1024 * 1024;

// One value in the document, with where it is and how to name it in messages.
struct Field {
  YAML::Node node;
  std::string path;
  PlanLocation where;
};

PlanLocation location_of(const YAML::Node &node, PlanLocation fallback) {
  // yaml-cpp marks an empty value at the start of the next line; the key is the clearer place.
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return fallback;
  return {mark.line + 1, mark.column + 1};
}

class PlanParser {
 public:
  // `from_file`: the text is a plan file's, so it may include others (and then needs no
  // session of its own: an include may give it). `fragment`: it is itself included, and
  // needs no session either.
  PlanParser(std::string file, const EnvLookup &env, bool from_file = false, bool fragment = false)
      : file_(std::move(file)), env_(env), from_file_(from_file), fragment_(fragment) {}

  MountPlan parse(std::string_view yaml_text) {
    MountPlan plan;
    plan.file = file_;
    if (auto root = load_single_document(yaml_text)) parse_root(*root, plan);
    if (!problems_.empty()) throw MountPlanError(std::move(problems_));
    plan.warnings = std::move(warnings_);
    return plan;
  }

 private:
  void error(PlanLocation where, std::string key, std::string message) {
    problems_.push_back({file_, where, std::move(key), std::move(message)});
  }

  void warn(PlanLocation where, std::string key, std::string message) {
    warnings_.push_back(PlanProblem{file_, where, std::move(key), std::move(message)}.to_string());
  }

  // Where each YAML document starts, and nothing else.
  class DocumentStarts : public YAML::EventHandler {
   public:
    std::vector<YAML::Mark> marks;
    void OnDocumentStart(const YAML::Mark &mark) override { marks.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark &, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t,
                  const std::string &) override {}
    void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  };

  std::optional<YAML::Node> load_single_document(std::string_view yaml_text) {
    // Not YAML::LoadAll: yaml-cpp 0.7 loops there forever on a stray top-level token (a plan
    // that is just ","): each document it reads is empty and consumes nothing, so the next
    // starts at the same place (found by fuzzing). At most two documents are read here, and a
    // second one starting where the first did is that stray token.
    YAML::Node root;
    try {
      std::istringstream input{std::string(yaml_text)};
      YAML::Parser parser(input);
      DocumentStarts starts;
      while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
      }
      if (starts.marks.size() == 2) {
        const YAML::Mark &first = starts.marks[0], &second = starts.marks[1];
        const PlanLocation where{second.line + 1, second.column + 1};
        if (second.pos == first.pos)
          error(where, "", "YAML syntax error: unexpected token at the top level");
        else
          error(where, "", "a mount plan is a single YAML document, found several");
        return std::nullopt;
      }
      root = YAML::Load(std::string(yaml_text));
    } catch (const YAML::Exception &e) {
      error({e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
      return std::nullopt;
    }
    return root;
  }

  // Visits a map's entries as Fields, reporting non-scalar and duplicate keys.
  template <class Visit>
  void for_each_entry(const Field &map, Visit visit) {
    std::map<std::string, PlanLocation> seen;
    // By value: yaml-cpp iterators yield temporaries (entry->first would dangle).
    for (const auto entry : map.node) {
      const YAML::Node &key = entry.first;
      const PlanLocation key_where = location_of(key, map.where);
      if (!key.IsScalar()) {
        error(key_where, map.path, "keys must be strings, found " + std::string(describe_node(key)));
        continue;
      }
      const std::string name = key.Scalar();
      if (!count_converted_bytes(name.size(), key_where, map.path)) return;
      const std::string path = child_path(map.path, name);
      if (auto [first, inserted] = seen.emplace(name, key_where); !inserted) {
        error(key_where, path, fmt::format("duplicate key (first at line {})", first->second.line));
        continue;
      }
      visit(name, key_where, Field{entry.second, path, location_of(entry.second, key_where)});
    }
  }

  // Adds `bytes` of keys or values to what the document converts to; false (reported once)
  // past kMaxConvertedBytes, when aliases have repeated too much.
  bool count_converted_bytes(std::size_t bytes, PlanLocation where, const std::string &path) {
    converted_bytes_ += bytes;
    if (converted_bytes_ <= kMaxConvertedBytes) return true;
    if (!std::exchange(bytes_exceeded_, true))
      error(where, path,
            fmt::format("document too large once aliases are expanded (its keys and values "
                        "exceed {} MiB)",
                        kMaxConvertedBytes / (1024 * 1024)));
    return false;
  }

  std::string expand(const std::string &text, const Field &field) {
    if (text.find('$') == std::string::npos) return text;
    std::vector<std::string> unset;
    std::string expanded;
    try {
      expanded = expand_env(text, env_, &unset);
    } catch (const ExpansionError &e) {
      error(field.where, field.path, e.what());
      return {};
    }
    for (const auto &name : unset)
      warn(field.where, field.path, fmt::format("environment variable {} is not set; using \"\"", name));
    return expanded;
  }

  json::value scalar_to_json(const Field &field, bool expand_variables) {
    const std::string &written = field.node.Scalar();
    if (!count_converted_bytes(written.size(), field.where, field.path)) return nullptr;
    const std::string text = expand_variables ? expand(written, field) : written;
    const std::string &tag = field.node.Tag();
    // "!" is yaml-cpp's tag for quoted and block scalars.
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return json::string(text);
    if (tag != "?") warn(field.where, field.path, fmt::format("tag '{}' ignored", tag));
    if (text.empty() && !written.empty()) return json::string();  // see the file comment
    return core_schema_value(text);
  }

  json::value to_json(const Field &field, bool expand_variables) {
    if (++converted_nodes_ > kMaxConvertedNodes) {
      if (converted_nodes_ == kMaxConvertedNodes + 1)
        error(field.where, field.path, "document too large once aliases are expanded");
      return nullptr;
    }
    switch (field.node.Type()) {
      case YAML::NodeType::Scalar: return scalar_to_json(field, expand_variables);
      case YAML::NodeType::Sequence: {
        json::array array;
        for (std::size_t i = 0; i < field.node.size(); ++i) {
          const YAML::Node item = field.node[i];
          array.push_back(to_json({item, item_path(field.path, i), location_of(item, field.where)},
                                  expand_variables));
        }
        return array;
      }
      case YAML::NodeType::Map: {
        json::object object;
        for_each_entry(field, [&](const std::string &key, PlanLocation, const Field &value) {
          object[key] = to_json(value, expand_variables);
        });
        return object;
      }
      default: return nullptr;
    }
  }

  // A map converted to JSON; null counts as empty. Reports anything else.
  json::object read_map(const Field &field, bool expand_variables) {
    if (field.node.IsNull()) return {};
    if (!field.node.IsMap()) {
      error(field.where, field.path, fmt::format("expected a map, got {}", describe_node(field.node)));
      return {};
    }
    json::value converted = to_json(field, expand_variables);
    return converted.is_object() ? std::move(converted.get_object()) : json::object();
  }

  // A string value (typed like config, so `module: 123` is reported as an integer).
  std::optional<std::string> read_string(const Field &field) {
    if (field.node.IsNull()) return std::nullopt;
    if (!field.node.IsScalar()) {
      error(field.where, field.path, fmt::format("expected a string, got {}", describe_node(field.node)));
      return std::nullopt;
    }
    json::value value = scalar_to_json(field, true);
    if (!value.is_string()) {
      error(field.where, field.path,
            fmt::format("expected a string, got {} '{}' (quote it)", describe_kind(value), field.node.Scalar()));
      return std::nullopt;
    }
    return std::string(value.get_string());
  }

  // A true/false value (YAML 1.2 core booleans).
  std::optional<bool> read_bool(const Field &field) {
    json::value value = field.node.IsScalar() ? scalar_to_json(field, true) : json::value();
    if (value.is_bool()) return value.get_bool();
    error(field.where, field.path, fmt::format("expected true or false, got {}",
                                               describe_node(field.node)));
    return std::nullopt;
  }

  // A number within [minimum, maximum].
  std::optional<double> read_number(const Field &field, double minimum, double maximum) {
    json::value value = field.node.IsScalar() ? scalar_to_json(field, true) : json::value();
    if (!value.is_number()) {
      error(field.where, field.path, fmt::format("expected a number, got {}", describe_node(field.node)));
      return std::nullopt;
    }
    double number = value.to_number<double>();
    if (number < minimum || number > maximum) {
      error(field.where, field.path,
            fmt::format("{} is out of range [{}, {}]", field.node.Scalar(), minimum, maximum));
      return std::nullopt;
    }
    return number;
  }

  std::optional<Isolation> read_isolation(const Field &field) {
    auto text = read_string(field);
    if (!text) return std::nullopt;
    if (*text == "process") return Isolation::process;
    if (*text == "in_process") return Isolation::in_process;
    error(field.where, field.path,
          fmt::format("unknown isolation '{}': expected process or in_process", *text));
    return std::nullopt;
  }

  // The keys every module entry may have beyond module, source and config; false when `key`
  // is none of them.
  bool read_module_option(const std::string &key, const Field &value, ModuleSpec &spec) {
    if (std::find(kModuleKeys.begin() + 3, kModuleKeys.end(), key) != kModuleKeys.end())
      spec.set_keys.push_back(key);
    if (key == "required") {
      spec.required = read_bool(value).value_or(false);
    } else if (key == "isolation") {
      spec.isolation = read_isolation(value).value_or(Isolation::inherit);
    } else if (key == "timeout") {
      spec.timeout_seconds = read_number(value, 0.001, 86'400).value_or(0);
    } else if (key == "memory_limit_mb") {
      spec.memory_limit_mb = std::size_t(read_number(value, 16, 1 << 20).value_or(0));
    } else if (key == "restarts_per_minute") {
      spec.restarts_per_minute = int(read_number(value, 0, 1000).value_or(3));
    } else if (key == "max_message_mb") {
      spec.max_message_mb = std::size_t(read_number(value, 1, 1024).value_or(64));
    } else {
      return false;
    }
    return true;
  }

  std::string read_module_id(const Field &field) {
    const auto id = read_string(field);
    if (!id) {
      if (field.node.IsNull()) error(field.where, field.path, "module id is empty");
      return {};
    }
    if (id->empty()) {
      error(field.where, field.path, "module id is empty");
    } else if (!is_valid_module_id(*id)) {
      error(field.where, field.path,
            fmt::format("invalid module id '{}': module ids name files, so they must match "
                        "[a-z0-9][a-z0-9._-]* without '..'",
                        *id));
    }
    return *id;
  }

  // {module, source?, config?[, instance_id?]}, or for session slots also a bare module id.
  ModuleSpec read_module_spec(const Field &field, bool accepts_id_string, bool accepts_instance_id) {
    ModuleSpec spec;
    spec.location = field.where;
    spec.file = file_;
    if (accepts_id_string && field.node.IsScalar()) {
      spec.module = read_module_id(field);
      return spec;
    }
    if (!field.node.IsMap()) {
      error(field.where, field.path,
            fmt::format("expected {}, got {}", accepts_id_string ? "a module id or a map with 'module'" : "a map with 'module'",
                        describe_node(field.node)));
      return spec;
    }
    bool has_module = false;
    for_each_entry(field, [&](const std::string &key, PlanLocation key_where, const Field &value) {
      if (key == "module") {
        has_module = true;
        spec.module = read_module_id(value);
      } else if (key == "source") {
        spec.source = read_string(value).value_or("");
        if (std::string problem = module_sources::source_problem(spec.source); !problem.empty())
          error(value.where, value.path, problem);
      } else if (key == "config") {
        spec.config = read_map(value, true);
      } else if (read_module_option(key, value, spec)) {
      } else if (key == "instance_id" && accepts_instance_id) {
        spec.instance_id = read_string(value).value_or("");
        if (spec.instance_id.empty()) error(value.where, value.path, "instance_id is empty");
      } else {
        warn(key_where, value.path,
             accepts_instance_id ? unknown_key_message(key, kProviderKeys) : unknown_key_message(key, kModuleKeys));
      }
    });
    if (!has_module) error(field.where, child_path(field.path, "module"), "missing required key");
    return spec;
  }

  std::vector<ModuleSpec> read_module_list(const Field &field, bool accepts_instance_id) {
    std::vector<ModuleSpec> specs;
    if (field.node.IsNull()) return specs;
    if (!field.node.IsSequence()) {
      error(field.where, field.path, fmt::format("expected a list, got {}", describe_node(field.node)));
      return specs;
    }
    for (std::size_t i = 0; i < field.node.size(); ++i) {
      const YAML::Node item = field.node[i];
      specs.push_back(read_module_spec({item, item_path(field.path, i), location_of(item, field.where)},
                                       false, accepts_instance_id));
    }
    return specs;
  }

  // Providers and tools are looked up by mount name, so two with one name cannot both mount.
  void check_unique_mount_names(const std::vector<ModuleSpec> &specs, std::string_view section) {
    std::map<std::string_view, std::size_t> first_index;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const std::string &name = specs[i].mount_name();
      if (name.empty()) continue;  // already reported
      auto [first, inserted] = first_index.emplace(name, i);
      if (inserted) continue;
      error(specs[i].location, fmt::format("{}[{}]", section, i),
            fmt::format("duplicate mount name '{}' (also {}[{}] at line {}){}", name, section, first->second,
                        specs[first->second].location.line,
                        section == "providers" ? "; give one a distinct instance_id" : ""));
    }
  }

  void read_session(const Field &field, MountPlan &plan) {
    if (!field.node.IsMap()) {
      error(field.where, field.path,
            fmt::format("expected a map with 'orchestrator' and 'context', got {}", describe_node(field.node)));
      return;
    }
    session_where_ = field.where;
    for_each_entry(field, [&](const std::string &key, PlanLocation, const Field &value) {
      if (key == "orchestrator") {
        has_orchestrator_ = true;
        plan.orchestrator = read_module_spec(value, true, false);
      } else if (key == "context") {
        has_context_ = true;
        plan.context = read_module_spec(value, true, false);
      } else if (key == "isolation") {
        plan.isolation = read_isolation(value).value_or(Isolation::in_process);
        plan.isolation_set = true;
      } else {
        plan.session_extra[key] = to_json(value, true);
      }
    });
  }

  void parse_root(const YAML::Node &root, MountPlan &plan) {
    const Field document{root, "", location_of(root, {1, 1})};
    if (root.IsNull()) {
      error(document.where, "session", "the mount plan is empty; 'session' is required");
      return;
    }
    if (!root.IsMap()) {
      error(document.where, "", fmt::format("a mount plan is a map of sections, got {}", describe_node(root)));
      return;
    }
    bool has_session = false;
    for_each_entry(document, [&](const std::string &key, PlanLocation key_where, const Field &value) {
      if (key == "includes") {
        read_includes(value, plan);
      } else if (key == "session") {
        has_session = true;
        read_session(value, plan);
      } else if (key == "providers") {
        plan.providers = read_module_list(value, true);
      } else if (key == "tools") {
        plan.tools = read_module_list(value, false);
      } else if (key == "hooks") {
        plan.hooks = read_module_list(value, false);
      } else if (key == "agents") {
        plan.agents = read_map(value, false);
      } else if (key == "routing") {
        read_routing(value, plan);
      } else {
        warn(key_where, key, unknown_key_message(key, kTopLevelKeys));
      }
    });
    // A plan that includes others, or is included, may have its session completed by another
    // (load_mount_plan checks the merged plan).
    if (plan.includes.empty() && !fragment_) {
      if (!has_session) {
        error(document.where, "session", "missing required section");
      } else {
        if (!has_orchestrator_) error(session_where_, "session.orchestrator", "missing required key");
        if (!has_context_) error(session_where_, "session.context", "missing required key");
      }
    }
    check_unique_mount_names(plan.providers, "providers");
    check_unique_mount_names(plan.tools, "tools");
    if (plan.includes.empty() && !fragment_)
      for (auto &problem : routing_problems(plan)) error(document.where, problem.first, problem.second);
  }

  // routing: a map of role -> a non-empty list of provider mount names.
  void read_routing(const Field &field, MountPlan &plan) {
    json::object routing = read_map(field, false);
    for (const auto &[role, list] : routing) {
      const std::string path = "routing." + std::string(role);
      bool names = list.is_array() && !list.get_array().empty();
      if (names)
        for (const auto &name : list.get_array()) names = names && name.is_string() && !name.get_string().empty();
      if (!names)
        error(field.where, path, "expected a non-empty list of provider names (their mount names)");
    }
    plan.routing = std::move(routing);
  }

  void read_includes(const Field &field, MountPlan &plan) {
    if (!field.node.IsSequence()) {
      error(field.where, field.path, fmt::format("expected a list of plan files, got {}", describe_node(field.node)));
      return;
    }
    if (!from_file_) {
      error(field.where, field.path, "only a plan read from a file can include others");
      return;
    }
    for (std::size_t i = 0; i < field.node.size(); ++i) {
      const YAML::Node item = field.node[i];
      const Field entry{item, item_path(field.path, i), location_of(item, field.where)};
      if (auto path = read_string(entry); path && !path->empty()) {
        plan.includes.push_back(*path);
      } else if (path) {
        error(entry.where, entry.path, "an empty path");
      }
    }
  }

  std::string file_;
  const EnvLookup &env_;
  const bool from_file_;
  const bool fragment_;
  bool has_orchestrator_ = false;
  bool has_context_ = false;
  PlanLocation session_where_;
  std::vector<PlanProblem> problems_;
  std::vector<std::string> warnings_;
  std::size_t converted_nodes_ = 0;
  std::size_t converted_bytes_ = 0;
  bool bytes_exceeded_ = false;
};

std::string describe_problems(const std::vector<PlanProblem> &problems) {
  if (problems.size() == 1) return "invalid mount plan: " + problems.front().to_string();
  std::string text = fmt::format("invalid mount plan ({} problems):", problems.size());
  for (const auto &problem : problems) text += "\n  " + problem.to_string();
  return text;
}

}  // namespace

std::string PlanProblem::to_string() const {
  std::string text = file;
  if (location.line > 0) text += fmt::format(":{}:{}", location.line, location.column);
  text += ": ";
  if (!key.empty()) text += key + ": ";
  return text + message;
}

MountPlanError::MountPlanError(std::vector<PlanProblem> problems)
    : std::runtime_error(describe_problems(problems)), problems_(std::move(problems)) {}

MountPlan parse_mount_plan(std::string_view yaml_text, std::string file_label, const EnvLookup &env) {
  return PlanParser(std::move(file_label), env).parse(yaml_text);
}

MountPlan parse_plan_fragment(std::string_view yaml_text, std::string file_label,
                              const EnvLookup &env) {
  return PlanParser(std::move(file_label), env, false, true).parse(yaml_text);
}

namespace {

// A relative local `source:` is relative to the plan's folder, as in upstream plans.
void anchor_sources(MountPlan &plan, const std::filesystem::path &plan_dir) {
  auto anchor = [&](ModuleSpec &spec) {
    if (spec.source.empty() || module_sources::is_remote(spec.source) ||
        spec.source.find("://") != std::string::npos)
      return;
    std::filesystem::path path(spec.source);
    if (path.is_relative())
      spec.source = (std::filesystem::absolute(plan_dir) / path).lexically_normal().string();
  };
  anchor(plan.orchestrator);
  anchor(plan.context);
  for (auto *list : {&plan.providers, &plan.tools, &plan.hooks})
    for (auto &spec : *list) anchor(spec);
  // `agents: {name: path/to/agent.md}`: relative to the plan that says it.
  for (auto &[name, value] : plan.agents)
    if (value.is_string() && std::filesystem::path(std::string(value.as_string())).is_relative())
      value = (std::filesystem::absolute(plan_dir) / std::string(value.as_string()))
                  .lexically_normal()
                  .string();
}

}  // namespace

namespace {

// Mappings merge key by key, recursively; anything else of `top` replaces.
void deep_merge(json::object &base, const json::object &top) {
  for (const auto &[key, value] : top) {
    auto *existing = base.if_contains(key);
    if (existing && existing->is_object() && value.is_object()) {
      deep_merge(existing->get_object(), value.get_object());
    } else {
      base[key] = value;
    }
  }
}

bool sets(const ModuleSpec &spec, std::string_view key) {
  return std::find(spec.set_keys.begin(), spec.set_keys.end(), key) != spec.set_keys.end();
}

void merge_spec(ModuleSpec &base, const ModuleSpec &top) {
  if (base.module != top.module) {  // another module in the same place: it replaces
    base = top;
    return;
  }
  if (!top.source.empty()) base.source = top.source;
  if (sets(top, "required")) base.required = top.required;
  if (sets(top, "isolation")) base.isolation = top.isolation;
  if (sets(top, "timeout")) base.timeout_seconds = top.timeout_seconds;
  if (sets(top, "memory_limit_mb")) base.memory_limit_mb = top.memory_limit_mb;
  if (sets(top, "restarts_per_minute")) base.restarts_per_minute = top.restarts_per_minute;
  if (sets(top, "max_message_mb")) base.max_message_mb = top.max_message_mb;
  for (const auto &key : top.set_keys)
    if (!sets(base, key)) base.set_keys.push_back(key);
  deep_merge(base.config, top.config);
  base.location = top.location;
  base.file = top.file;
}

void merge_list(std::vector<ModuleSpec> &base, const std::vector<ModuleSpec> &top) {
  for (const auto &spec : top) {
    auto same = std::find_if(base.begin(), base.end(), [&](const ModuleSpec &existing) {
      return existing.mount_name() == spec.mount_name();
    });
    if (same == base.end()) {
      base.push_back(spec);
    } else {
      merge_spec(*same, spec);
    }
  }
}

std::string read_plan_text(const std::filesystem::path &file) {
  auto unreadable = [&](std::string reason) {
    return MountPlanError({PlanProblem{file.string(), {}, "", "cannot read mount plan: " + reason}});
  };
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw unreadable("it is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw unreadable(std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw unreadable("read error");
  return text.str();
}

// Deeper than this, a chain of includes is a mistake, not a design.
constexpr std::size_t kMaxIncludeDepth = 32;

// `file` and everything it includes, merged; `chain` is the files including it, outermost first.
MountPlan load_with_includes(const std::filesystem::path &file, const EnvLookup &env,
                             std::vector<std::filesystem::path> &chain) {
  MountPlan own = PlanParser(file.string(), env, true, !chain.empty()).parse(read_plan_text(file));
  const auto folder = std::filesystem::absolute(file).parent_path();
  anchor_sources(own, folder);
  if (own.includes.empty()) return own;
  MountPlan merged;
  chain.push_back(std::filesystem::weakly_canonical(file));
  for (const auto &include : own.includes) {
    const auto path = (folder / include).lexically_normal();
    const auto canonical = std::filesystem::weakly_canonical(path);
    auto problem = [&](std::string message) {
      return MountPlanError({PlanProblem{file.string(), {}, "includes", std::move(message)}});
    };
    if (auto loop = std::find(chain.begin(), chain.end(), canonical); loop != chain.end()) {
      std::string cycle;
      for (auto it = loop; it != chain.end(); ++it) cycle += it->string() + " -> ";
      throw problem("include cycle: " + cycle + canonical.string());
    }
    if (chain.size() >= kMaxIncludeDepth)
      throw problem(fmt::format("includes nested deeper than {} plans", kMaxIncludeDepth));
    merge_mount_plan(merged, load_with_includes(path, env, chain));
  }
  chain.pop_back();
  merge_mount_plan(merged, own);
  merged.includes = own.includes;
  return merged;
}

}  // namespace

void merge_mount_plan(MountPlan &base, const MountPlan &top) {
  for (auto [slot, top_slot] : {std::pair{&base.orchestrator, &top.orchestrator},
                                std::pair{&base.context, &top.context}}) {
    if (top_slot->module.empty()) continue;
    if (slot->module.empty()) {
      *slot = *top_slot;
    } else {
      merge_spec(*slot, *top_slot);
    }
  }
  merge_list(base.providers, top.providers);
  merge_list(base.tools, top.tools);
  merge_list(base.hooks, top.hooks);
  if (top.isolation_set) {
    base.isolation = top.isolation;
    base.isolation_set = true;
  }
  deep_merge(base.session_extra, top.session_extra);
  deep_merge(base.agents, top.agents);
  for (const auto &[role, list] : top.routing) base.routing[role] = list;  // a role is replaced whole
  base.warnings.insert(base.warnings.end(), top.warnings.begin(), top.warnings.end());
  base.file = top.file;
}

MountPlan load_mount_plan(const std::filesystem::path &file, const EnvLookup &env) {
  std::vector<std::filesystem::path> chain;
  MountPlan plan = load_with_includes(file, env, chain);
  std::vector<PlanProblem> missing;
  if (plan.orchestrator.module.empty())
    missing.push_back({file.string(), {}, "session.orchestrator", "missing in the plan and its includes"});
  if (plan.context.module.empty())
    missing.push_back({file.string(), {}, "session.context", "missing in the plan and its includes"});
  for (auto &[key, message] : routing_problems(plan))
    missing.push_back({file.string(), {}, std::move(key), std::move(message)});
  if (!missing.empty()) throw MountPlanError(std::move(missing));
  return plan;
}

}  // namespace amplifier
