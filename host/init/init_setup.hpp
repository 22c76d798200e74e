// The values `amplifier init` holds for one provider's config fields, and what they become:
// the provider's config in settings.yaml and the secrets for keys.env.
#pragma once
#include "init_fields.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host::init {

class ProviderSetup {
 public:
  // `saved_config`: what settings.yaml holds for this provider (null when it names another).
  // Saved values count as answers: Enter keeps them, and keys that are no fields stay too.
  ProviderSetup(std::string provider, std::vector<ConfigField> fields,
                const YAML::Node &saved_config);

  const std::string &provider() const { return provider_; }
  const std::vector<ConfigField> &fields() const { return fields_; }
  const ConfigField *field(std::string_view id) const;

  enum class Source { none, answer, saved, environment, provider };
  struct Offered {
    Source source = Source::none;
    std::string text;  // a secret's too: callers never show it
  };
  // What Enter keeps: an answer (this run's or a saved one), else the env_var's current
  // value, else the provider's default.
  Offered offered(const ConfigField &field) const;
  // The value show_when conditions and required checks see (the offered one).
  std::string value_of(std::string_view field_id) const;
  // show_when holds, and for a requires_model field a model is chosen.
  bool applies(const ConfigField &field) const;
  bool model_chosen() const;

  // A checked answer. One equal to the environment's or the provider's default means the same
  // as accepting that default, so nothing is written for it.
  void answer(const ConfigField &field, const std::string &text);
  bool answered(const ConfigField &field) const { return answers_.count(field.id) > 0; }

  // Required fields that apply and have no value.
  std::vector<const ConfigField *> missing_required() const;

  // The provider's config for settings.yaml: answers to the fields that apply (a secret as a
  // "${VARIABLE}" reference), then saved keys that are no fields.
  YAML::Node config() const;
  // keys.env entries for the secrets typed in this run (variable -> value).
  std::map<std::string, std::string> secrets() const;

 private:
  struct Answer {
    std::string text;
    bool is_saved = false;  // kept from settings.yaml: `saved` is written back as it was
    YAML::Node saved;
  };
  // The default when there is no answer: the env_var's value, else the provider's default.
  Offered fallback(const ConfigField &field) const;

  std::string provider_;
  std::vector<ConfigField> fields_;
  std::map<std::string, Answer, std::less<>> answers_;
  YAML::Node saved_extras_;  // saved keys that are no fields
};

}  // namespace amplifier::host::init
