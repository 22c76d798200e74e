// A provider's config_fields (ProviderInfo) as `amplifier init` reads and asks them.
#pragma once
#include "settings_yaml.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amplifier::host::init {

enum class FieldType { text, secret, choice, boolean };

// One of `field: [values]`: the field is asked only when `field` has one of `values`.
struct ShowCondition {
  std::string field;
  std::vector<std::string> values;  // as typed: booleans "true"/"false", numbers as written
};

struct ConfigField {
  std::string id;
  std::string display_name;
  FieldType type = FieldType::text;
  std::string prompt;
  std::string env_var;  // empty when none
  std::vector<std::string> choices;
  bool required = false;
  bool requires_model = false;           // asked only once a model is chosen
  boost::json::value default_value;      // null when none
  std::vector<ShowCondition> show_when;  // all must hold
};

// The config_fields of a ProviderInfo. An entry that cannot be used (no id, unknown type, a
// choice without choices) is skipped with a line in `warnings`.
std::vector<ConfigField> read_config_fields(const boost::json::value &provider_info,
                                            std::vector<std::string> &warnings);

// The field that names the model: `default_model`, else `model`; nullptr when there is none.
const ConfigField *model_field(const std::vector<ConfigField> &fields);

// A JSON value as a user would type it: strings as they are, booleans true/false, "" for null.
std::string text_of(const boost::json::value &value);

// An answer checked against its field: `text` is canonical (booleans "true"/"false", a choice
// given by its number replaced by its value), or `error` says what is wrong with it.
struct CheckedAnswer {
  std::string text;
  std::string error;
};
CheckedAnswer check_answer(const ConfigField &field, std::string_view typed);

// The settings.yaml value of a checked answer to a field that is not a secret. Text becomes a
// number or boolean when the field's default is one (or, without a default, when it reads
// as one), a map or list when it is written in {...} or [...], otherwise a quoted string.
YAML::Node config_value(const ConfigField &field, const std::string &text);

// Where a secret is stored in keys.env: the field's env_var, else
// AMPLIFIER_<PROVIDER>_<FIELD> (upper case, "provider-" dropped, other characters '_').
std::string secret_variable(const ConfigField &field, std::string_view provider_id);

// "api_key, base_url, ..." for messages.
std::string field_ids(const std::vector<ConfigField> &fields);

}  // namespace amplifier::host::init
