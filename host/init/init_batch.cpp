// `amplifier init --provider ID --set KEY=VALUE ...`: the same setup without questions.
#include "init.hpp"
#include "init_provider.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace amplifier::host::init {

namespace {

std::string installed_provider(const std::string &wanted) {
  const auto providers = installed_providers();
  std::vector<std::string> ids;
  for (const auto &provider : providers) ids.push_back(provider.id);
  if (std::find(ids.begin(), ids.end(), wanted) != ids.end()) return wanted;
  throw std::runtime_error(
      fmt::format("no provider '{}' is installed; installed: {}", wanted,
                  ids.empty() ? "none" : fmt::format("{}", fmt::join(ids, ", "))));
}

std::string describe_condition(const ConfigField &field) {
  std::vector<std::string> parts;
  for (const auto &condition : field.show_when)
    parts.push_back(fmt::format("{} is {}", condition.field, fmt::join(condition.values, " or ")));
  return fmt::format("{}", fmt::join(parts, " and "));
}

// Applies every --set; returns the fields they named.
std::vector<const ConfigField *> apply_sets(ProviderSetup &setup,
                                            const std::vector<KeyValue> &sets) {
  std::vector<const ConfigField *> named;
  for (const auto &[key, value] : sets) {
    const ConfigField *field = setup.field(key);
    if (!field)
      throw std::runtime_error(fmt::format("--set {}: {} has no config field '{}'; valid keys: {}",
                                           key, setup.provider(), key, field_ids(setup.fields())));
    const CheckedAnswer checked = check_answer(*field, value);
    if (!checked.error.empty())
      throw std::runtime_error(fmt::format("--set {}: {}", key, checked.error));
    setup.answer(*field, checked.text);
    named.push_back(field);
  }
  return named;
}

// A value for a field that the other answers leave out is a mistake worth naming.
void check_named_fields_apply(const ProviderSetup &setup,
                              const std::vector<const ConfigField *> &named) {
  for (const ConfigField *field : named) {
    if (setup.applies(*field)) continue;
    if (field->requires_model && !setup.model_chosen())
      throw std::runtime_error(fmt::format("--set {}: it needs a model; set {} too", field->id,
                                           model_field(setup.fields())->id));
    throw std::runtime_error(
        fmt::format("--set {}: it applies only when {}", field->id, describe_condition(*field)));
  }
}

void check_required(const ProviderSetup &setup) {
  std::vector<std::string> missing;
  for (const ConfigField *field : setup.missing_required())
    missing.push_back(field->env_var.empty()
                          ? fmt::format("{} ({})", field->id, field->display_name)
                          : fmt::format("{} ({}; or {} in the environment)", field->id,
                                        field->display_name, field->env_var));
  if (!missing.empty())
    throw std::runtime_error(fmt::format("{} needs a value for: {} (--set KEY=VALUE)",
                                         setup.provider(), fmt::join(missing, ", ")));
}

}  // namespace

int run_batch_init(const InitOptions &options) {
  const std::string provider = installed_provider(options.provider);
  const auto saved = settings_for_init();
  std::vector<KeyValue> sets;
  for (const auto &set : options.sets) sets.push_back(split_key_value(set));
  ProviderSetup setup = start_setup(provider, saved, sets);
  check_named_fields_apply(setup, apply_sets(setup, sets));
  check_required(setup);
  if (!options.no_verify) {
    const ModelListing listing = check_setup(setup);
    if (!listing.ok)
      throw std::runtime_error(fmt::format(
          "the check failed: {} could not list its models: {} (nothing written; --no-verify "
          "saves without the check)",
          provider, listing.error));
    std::printf("checked: %s lists %zu models\n", provider.c_str(), listing.ids.size());
  }
  save_setup(setup, saved);
  return 0;
}

}  // namespace amplifier::host::init
