#include "init_setup.hpp"

#include <cstdlib>

namespace amplifier::host::init {

namespace {

std::string environment_value(const std::string &name) {
  if (name.empty()) return {};
  const char *value = std::getenv(name.c_str());
  return value ? value : "";
}

// The variable of a saved "${NAME}" reference, or "" when the value is something else.
std::string referenced_variable(const YAML::Node &node) {
  if (!node.IsScalar()) return {};
  const std::string &text = node.Scalar();
  if (text.size() < 4 || text.rfind("${", 0) != 0 || text.back() != '}') return {};
  std::string name = text.substr(2, text.size() - 3);
  return name.find_first_of("${}:") == std::string::npos ? name : std::string();
}

// What a saved value means to conditions: a reference's current value, a scalar's text.
std::string saved_text(const YAML::Node &node) {
  if (std::string name = referenced_variable(node); !name.empty()) return environment_value(name);
  if (node.IsScalar()) return node.Scalar();
  return node.IsNull() ? std::string() : emit_flow_yaml(node);
}

}  // namespace

ProviderSetup::ProviderSetup(std::string provider, std::vector<ConfigField> fields,
                             const YAML::Node &saved_config)
    : provider_(std::move(provider)),
      fields_(std::move(fields)),
      saved_extras_(YAML::NodeType::Map) {
  if (!saved_config || !saved_config.IsMap()) return;
  for (const auto &entry : saved_config) {
    const std::string key = entry.first.as<std::string>();
    if (field(key))
      answers_[key] = Answer{saved_text(entry.second), true, YAML::Clone(entry.second)};
    else
      saved_extras_[key] = YAML::Clone(entry.second);
  }
}

const ConfigField *ProviderSetup::field(std::string_view id) const {
  for (const auto &f : fields_)
    if (f.id == id) return &f;
  return nullptr;
}

ProviderSetup::Offered ProviderSetup::fallback(const ConfigField &field) const {
  if (std::string value = environment_value(field.env_var); !value.empty())
    return {Source::environment, value};
  if (!field.default_value.is_null()) return {Source::provider, text_of(field.default_value)};
  return {};
}

ProviderSetup::Offered ProviderSetup::offered(const ConfigField &field) const {
  auto it = answers_.find(field.id);
  if (it == answers_.end()) return fallback(field);
  return {it->second.is_saved ? Source::saved : Source::answer, it->second.text};
}

std::string ProviderSetup::value_of(std::string_view field_id) const {
  const ConfigField *f = field(field_id);
  return f ? offered(*f).text : std::string();
}

bool ProviderSetup::model_chosen() const {
  const ConfigField *model = model_field(fields_);
  return !model || !value_of(model->id).empty();
}

bool ProviderSetup::applies(const ConfigField &field) const {
  for (const auto &condition : field.show_when) {
    const std::string value = value_of(condition.field);
    bool met = false;
    for (const auto &wanted : condition.values) met = met || value == wanted;
    if (!met) return false;
  }
  return !field.requires_model || model_chosen();
}

void ProviderSetup::answer(const ConfigField &field, const std::string &text) {
  const Offered fallback_value = fallback(field);
  if (fallback_value.source != Source::none && fallback_value.text == text)
    answers_.erase(field.id);  // the default: not written, so it follows the default later
  else  // erase, not assign: assigning a YAML::Node writes through to the node it refers to
    answers_.erase(field.id), answers_.emplace(field.id, Answer{text, false, YAML::Node()});
}

std::vector<const ConfigField *> ProviderSetup::missing_required() const {
  std::vector<const ConfigField *> missing;
  for (const auto &f : fields_)
    if (f.required && applies(f) && value_of(f.id).empty()) missing.push_back(&f);
  return missing;
}

YAML::Node ProviderSetup::config() const {
  YAML::Node config(YAML::NodeType::Map);
  for (const auto &f : fields_) {
    auto it = answers_.find(f.id);
    if (it == answers_.end() || !applies(f)) continue;
    const Answer &a = it->second;
    if (a.is_saved)
      config[f.id] = a.saved;
    else if (f.type == FieldType::secret)
      config[f.id] = quoted_scalar("${" + secret_variable(f, provider_) + "}");
    else
      config[f.id] = config_value(f, a.text);
  }
  for (const auto &entry : saved_extras_) config[entry.first] = entry.second;
  return config;
}

std::map<std::string, std::string> ProviderSetup::secrets() const {
  std::map<std::string, std::string> secrets;
  for (const auto &f : fields_) {
    auto it = answers_.find(f.id);
    if (f.type != FieldType::secret || it == answers_.end() || it->second.is_saved || !applies(f))
      continue;
    secrets[secret_variable(f, provider_)] = it->second.text;
  }
  return secrets;
}

}  // namespace amplifier::host::init
