#include "init_fields.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <regex>

namespace amplifier::host::init {

namespace json = boost::json;

namespace {

std::string string_at(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

bool bool_at(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_bool() && value->get_bool();
}

std::optional<FieldType> field_type(std::string_view name) {
  if (name == "text") return FieldType::text;
  if (name == "secret") return FieldType::secret;
  if (name == "choice") return FieldType::choice;
  if (name == "boolean") return FieldType::boolean;
  return std::nullopt;
}

// show_when: {"field": value} or {"field": [value, ...]}; every entry must hold.
std::vector<ShowCondition> read_show_when(const json::value &show_when, std::string &problem) {
  std::vector<ShowCondition> conditions;
  if (!show_when.is_object()) {
    problem = "show_when is not an object {field: value}";
    return conditions;
  }
  for (const auto &entry : show_when.get_object()) {
    ShowCondition condition{std::string(entry.key()), {}};
    if (entry.value().is_array())
      for (const auto &value : entry.value().get_array())
        condition.values.push_back(text_of(value));
    else
      condition.values.push_back(text_of(entry.value()));
    conditions.push_back(std::move(condition));
  }
  return conditions;
}

std::optional<ConfigField> read_field(const json::value &entry, std::string &problem) {
  if (!entry.is_object()) {
    problem = "an entry is not an object";
    return std::nullopt;
  }
  const json::object &object = entry.get_object();
  ConfigField field;
  field.id = string_at(object, "id");
  if (field.id.empty()) {
    problem = "an entry has no id";
    return std::nullopt;
  }
  const auto type = field_type(string_at(object, "field_type"));
  if (!type) {
    problem = fmt::format("{}: unknown field_type '{}'", field.id, string_at(object, "field_type"));
    return std::nullopt;
  }
  field.type = *type;
  field.display_name = string_at(object, "display_name");
  if (field.display_name.empty()) field.display_name = field.id;
  field.prompt = string_at(object, "prompt");
  field.env_var = string_at(object, "env_var");
  field.required = bool_at(object, "required");
  field.requires_model = bool_at(object, "requires_model");
  if (const json::value *value = object.if_contains("default")) field.default_value = *value;
  if (const json::value *choices = object.if_contains("choices"); choices && choices->is_array())
    for (const auto &choice : choices->get_array()) field.choices.push_back(text_of(choice));
  if (field.type == FieldType::choice && field.choices.empty()) {
    problem = fmt::format("{}: a choice field without choices", field.id);
    return std::nullopt;
  }
  if (const json::value *show_when = object.if_contains("show_when");
      show_when && !show_when->is_null()) {
    field.show_when = read_show_when(*show_when, problem);
    if (!problem.empty()) {
      problem = fmt::format("{}: {}; asked unconditionally", field.id, problem);
      return field;  // still usable: asking it too often beats never asking it
    }
  }
  return field;
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return std::string(text);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::optional<bool> boolean_word(std::string_view typed) {
  const std::string word = lower(std::string(typed));
  if (word == "y" || word == "yes" || word == "true" || word == "on" || word == "1") return true;
  if (word == "n" || word == "no" || word == "false" || word == "off" || word == "0") return false;
  return std::nullopt;
}

// Integers and floats as the YAML 1.2 core schema reads plain scalars.
bool reads_as_number(const std::string &text) {
  static const std::regex number(
      R"([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  return std::regex_match(text, number);
}

bool reads_as_boolean(const std::string &text) {
  return text == "true" || text == "True" || text == "TRUE" || text == "false" || text == "False" ||
         text == "FALSE";
}

bool written_as_collection(const std::string &text) {
  return !text.empty() && (text.front() == '{' || text.front() == '[');
}

// A YAML flow map or list typed as an answer, or an undefined node when it is not one.
YAML::Node flow_collection(const std::string &text) {
  try {
    YAML::Node node = YAML::Load(text);
    if (node.IsMap() || node.IsSequence()) return node;
  } catch (const YAML::Exception &) {
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// Typed text is literal: `$` doubled so the mount plan does not expand it.
YAML::Node literal_string(const std::string &text) {
  std::string escaped;
  for (char c : text) escaped += c == '$' ? "$$" : std::string(1, c);
  return quoted_scalar(escaped);
}

CheckedAnswer check_choice(const ConfigField &field, const std::string &typed) {
  std::size_t number = 0;
  const bool all_digits =
      std::all_of(typed.begin(), typed.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!typed.empty() && typed.size() < 6 && all_digits) number = std::stoul(typed);
  if (number >= 1 && number <= field.choices.size()) return {field.choices[number - 1], {}};
  for (const auto &choice : field.choices)
    if (lower(choice) == lower(typed)) return {choice, {}};
  return {{}, fmt::format("must be one of: {}", fmt::join(field.choices, ", "))};
}

CheckedAnswer check_text(const ConfigField &field, const std::string &typed) {
  const json::value &fallback = field.default_value;
  if (fallback.is_bool()) {
    if (auto value = boolean_word(typed)) return {*value ? "true" : "false", {}};
    return {{}, "must be true or false"};
  }
  if (fallback.is_number() && !reads_as_number(typed)) return {{}, "must be a number"};
  if (fallback.is_null() && written_as_collection(typed) && !flow_collection(typed))
    return {{}, "starts like a YAML map or list ({...} or [...]) but is not one"};
  return {typed, {}};
}

}  // namespace

std::vector<ConfigField> read_config_fields(const json::value &provider_info,
                                            std::vector<std::string> &warnings) {
  std::vector<ConfigField> fields;
  const json::value *entries =
      provider_info.is_object() ? provider_info.get_object().if_contains("config_fields") : nullptr;
  if (!entries || !entries->is_array()) return fields;
  for (const auto &entry : entries->get_array()) {
    std::string problem;
    auto field = read_field(entry, problem);
    if (!problem.empty()) warnings.push_back(problem);
    if (field) fields.push_back(std::move(*field));
  }
  return fields;
}

const ConfigField *model_field(const std::vector<ConfigField> &fields) {
  for (std::string_view id : {"default_model", "model"})
    for (const auto &field : fields)
      if (field.id == id) return &field;
  return nullptr;
}

std::string text_of(const json::value &value) {
  if (value.is_null()) return {};
  if (value.is_string()) return std::string(value.get_string());
  return json::serialize(value);
}

CheckedAnswer check_answer(const ConfigField &field, std::string_view typed_text) {
  const std::string typed = trimmed(typed_text);
  if (typed.find_first_of("\r\n") != std::string::npos || typed.find('\0') != std::string::npos)
    return {{}, "must be a single line"};
  switch (field.type) {
    case FieldType::boolean:
      if (auto value = boolean_word(typed)) return {*value ? "true" : "false", {}};
      return {{}, "answer y or n"};
    case FieldType::choice:
      return check_choice(field, typed);
    case FieldType::secret:
      return {typed, {}};
    case FieldType::text:
      return check_text(field, typed);
  }
  return {typed, {}};
}

YAML::Node config_value(const ConfigField &field, const std::string &text) {
  if (field.type == FieldType::boolean) return YAML::Node(text);  // plain true/false
  if (field.type != FieldType::text) return literal_string(text);
  const json::value &fallback = field.default_value;
  if (fallback.is_bool() || fallback.is_number()) return YAML::Node(text);  // plain: typed
  if (fallback.is_string()) return literal_string(text);
  if (written_as_collection(text)) return flow_collection(text);
  if (reads_as_number(text) || reads_as_boolean(text)) return YAML::Node(text);
  return literal_string(text);
}

std::string secret_variable(const ConfigField &field, std::string_view provider_id) {
  if (!field.env_var.empty()) return field.env_var;
  constexpr std::string_view kPrefix = "provider-";
  if (provider_id.substr(0, kPrefix.size()) == kPrefix) provider_id.remove_prefix(kPrefix.size());
  std::string name = "AMPLIFIER_" + std::string(provider_id) + "_" + field.id;
  for (char &c : name)
    c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  return name;
}

std::string field_ids(const std::vector<ConfigField> &fields) {
  std::string ids;
  for (const auto &field : fields) ids += (ids.empty() ? "" : ", ") + field.id;
  return ids;
}

}  // namespace amplifier::host::init
