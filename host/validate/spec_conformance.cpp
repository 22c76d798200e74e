#include "spec_conformance.hpp"

#include "amplifier/json_schema.hpp"

#include <boost/json/object.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

constexpr std::array<std::string_view, 4> kFieldTypes = {"text", "secret", "choice", "boolean"};

bool non_empty_string(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_string() && !v->get_string().empty();
}

bool all_strings(const json::value &v) {
  return v.is_array() && std::all_of(v.get_array().begin(), v.get_array().end(),
                                     [](const json::value &item) { return item.is_string(); });
}

void check_config_field(const json::value &field, const std::string &path,
                        std::vector<std::string> &problems) {
  const json::object *f = field.if_object();
  if (!f) return problems.push_back(path + ": not an object");
  for (std::string_view key : {"id", "display_name", "field_type"})
    if (!non_empty_string(*f, key)) problems.push_back(fmt::format("{}: no {} string", path, key));
  const json::value *type = f->if_contains("field_type");
  if (!type || !type->is_string()) return;
  std::string_view name = type->get_string();
  if (std::find(kFieldTypes.begin(), kFieldTypes.end(), name) == kFieldTypes.end())
    problems.push_back(
        fmt::format("{}: field_type '{}' is not one of text, secret, choice, "
                    "boolean",
                    path, name));
  const json::value *choices = f->if_contains("choices");
  if (name == "choice" && (!choices || !all_strings(*choices) || choices->get_array().empty()))
    problems.push_back(path + ": a choice field without a list of choices");
}

void check_optional_shapes(const json::object &info, std::vector<std::string> &problems) {
  if (const json::value *v = info.if_contains("credential_env_vars"); v && !all_strings(*v))
    problems.push_back("credential_env_vars: not an array of strings");
  if (const json::value *v = info.if_contains("defaults"); v && !v->is_object())
    problems.push_back("defaults: not an object");
  if (const json::value *v = info.if_contains("capabilities");
      v && !v->is_object() && !v->is_array())
    problems.push_back("capabilities: neither an object nor an array");
}

bool is_api_tool_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

void check_parameters(const json::value &parameters, const std::string &path,
                      std::vector<std::string> &problems) {
  const json::object *schema = parameters.if_object();
  if (!schema) return problems.push_back(path + ": not a JSON Schema object");
  try {
    JsonSchema compiled(parameters);
  } catch (const std::exception &e) {
    problems.push_back(fmt::format("{}: not a valid JSON Schema: {}", path, e.what()));
    return;
  }
  const json::value *type = schema->if_contains("type");
  if (!type || !type->is_string() || type->get_string() != "object")
    problems.push_back(path + ": type must be \"object\" (a tool's input is an object)");
  const json::value *required = schema->if_contains("required");
  const json::value *properties = schema->if_contains("properties");
  if (!required || !required->is_array() || !properties || !properties->is_object()) return;
  for (const auto &name : required->get_array())
    if (name.is_string() && !properties->get_object().contains(name.get_string()))
      problems.push_back(fmt::format("{}: required property '{}' is not among its properties", path,
                                     name.get_string()));
}

void check_tool_spec(const json::value &spec, const std::string &path, std::set<std::string> &names,
                     std::vector<std::string> &problems) {
  const json::object *s = spec.if_object();
  if (!s) return problems.push_back(path + ": not an object");
  const json::value *name = s->if_contains("name");
  if (!name || !name->is_string() || !is_api_tool_name(name->get_string()))
    problems.push_back(path + ": name must be 1-64 of [A-Za-z0-9_-]");
  else if (!names.insert(std::string(name->get_string())).second)
    problems.push_back(fmt::format("{}: the name '{}' is used twice", path, name->get_string()));
  if (const json::value *d = s->if_contains("description"); d && !d->is_string())
    problems.push_back(path + ".description: not a string");
  if (const json::value *p = s->if_contains("parameters"); p && !p->is_null())
    check_parameters(*p, path + ".parameters", problems);
}

}  // namespace

std::vector<std::string> provider_info_problems(const json::value &info) {
  std::vector<std::string> problems;
  const json::object *o = info.if_object();
  if (!o) return {"ProviderInfo is not a JSON object"};
  for (std::string_view key : {"id", "display_name"})
    if (!non_empty_string(*o, key)) problems.push_back(fmt::format("{}: missing or empty", key));
  const json::value *fields = o->if_contains("config_fields");
  if (!fields || !fields->is_array()) {
    problems.push_back("config_fields: missing or not an array");
  } else {
    for (std::size_t i = 0; i < fields->get_array().size(); ++i)
      check_config_field(fields->get_array()[i], fmt::format("config_fields[{}]", i), problems);
  }
  check_optional_shapes(*o, problems);
  return problems;
}

std::vector<std::string> tool_spec_problems(const json::value &specs) {
  if (!specs.is_array()) return {"list_tools did not write a JSON array"};
  std::vector<std::string> problems;
  std::set<std::string> names;
  for (std::size_t i = 0; i < specs.get_array().size(); ++i)
    check_tool_spec(specs.get_array()[i], fmt::format("[{}]", i), names, problems);
  return problems;
}

}  // namespace amplifier::host::validate
