// `amplifier init` on a terminal: choose a provider, answer its config fields, check, save.
#include "init.hpp"
#include "init_prompt.hpp"
#include "init_provider.hpp"
#include "settings_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace amplifier::host::init {

namespace {

constexpr std::size_t kModelsShown = 20;  // more would push the question off the screen

using Source = ProviderSetup::Source;

bool is_number_in(const std::string &typed, std::size_t count, std::size_t &number) {
  if (typed.empty() || typed.size() > 5) return false;
  for (char c : typed)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  number = std::stoul(typed);
  return number >= 1 && number <= count;
}

std::string numbered(const std::vector<std::string> &items, std::size_t limit) {
  std::string line = " ";
  for (std::size_t i = 0; i < items.size() && i < limit; ++i)
    line += fmt::format(" {}) {}", i + 1, items[i]);
  if (items.size() > limit) line += fmt::format("  ... and {} more", items.size() - limit);
  return line + "\n";
}

std::string choose_provider(const Prompter &io, const std::vector<InstalledProvider> &providers,
                            const std::optional<UserSettings> &saved) {
  std::size_t fallback = 1;
  io.say("Installed providers:\n");
  for (std::size_t i = 0; i < providers.size(); ++i) {
    const auto &p = providers[i];
    const bool current = saved && saved->provider == p.id;
    if (current) fallback = i + 1;
    io.say(fmt::format("  {:>2}) {:<26} {}{}\n", i + 1, p.id,
                       p.offline ? "offline: canned answers, no network" : p.description,
                       current ? "  (current)" : ""));
  }
  for (;;) {
    const std::string typed =
        trimmed(io.ask(fmt::format("Provider (number or id) [{}]: ", fallback)));
    std::size_t number = 0;
    if (typed.empty()) return providers[fallback - 1].id;
    if (is_number_in(typed, providers.size(), number)) return providers[number - 1].id;
    for (const auto &p : providers)
      if (p.id == typed) return p.id;
    io.say("  not an installed provider: type its number or id\n");
  }
}

// The provider's fields. A provider that will not mount without some config (say a
// base_url) gets asked for it as KEY=VALUE until it mounts or the user gives up.
ProviderSetup setup_with_help(const Prompter &io, const std::string &provider,
                              const std::optional<UserSettings> &saved) {
  std::vector<KeyValue> given;
  for (;;) {
    try {
      ProviderSetup setup = start_setup(provider, saved, given);
      for (const auto &[key, value] : given) {
        const ConfigField *field = setup.field(key);
        if (!field) continue;
        if (const CheckedAnswer checked = check_answer(*field, value); checked.error.empty())
          setup.answer(*field, checked.text);
      }
      return setup;
    } catch (const std::runtime_error &e) {
      io.say(fmt::format("{} cannot describe its settings yet: {}\n", provider, e.what()));
      const std::string typed =
          trimmed(io.ask("Give the value it needs as KEY=VALUE (Enter to stop): "));
      if (typed.empty()) throw;
      try {
        given.push_back(split_key_value(typed));
      } catch (const std::runtime_error &wrong) {
        io.say(std::string("  ") + wrong.what() + "\n");
      }
    }
  }
}

// What Enter keeps, in brackets; a secret's value is never shown, only where it comes from.
std::string offered_hint(const ConfigField &field, const ProviderSetup::Offered &offered) {
  if (offered.source == Source::none) return field.type == FieldType::boolean ? " [y/n]" : "";
  if (field.type == FieldType::boolean) return offered.text == "true" ? " [Y/n]" : " [y/N]";
  if (field.type == FieldType::secret) {
    switch (offered.source) {
      case Source::answer:
        return " [Enter keeps the one you typed]";
      case Source::saved:
        return " [Enter keeps the saved one]";
      case Source::environment:
        return loaded_from_keys_file(field.env_var)
                   ? " [Enter keeps " + field.env_var + " from keys.env]"
                   : " [Enter keeps $" + field.env_var + " from the environment]";
      default:
        return " [Enter keeps the default]";
    }
  }
  if (offered.source == Source::environment)
    return " [" + offered.text + "] (from $" + field.env_var + ")";
  return " [" + offered.text + "]";
}

std::string question(const ConfigField &field, const ProviderSetup::Offered &offered) {
  std::string text = field.display_name;
  if (!field.prompt.empty()) text += " - " + field.prompt;
  if (field.type == FieldType::secret) text += " (typing is hidden)";
  return text + offered_hint(field, offered) + ": ";
}

// Asks one field until the answer is acceptable; Enter keeps what is offered. `models`, for
// the model field, are offered by number.
void ask_field(const Prompter &io, ProviderSetup &setup, const ConfigField &field,
               const std::vector<std::string> &models = {}) {
  if (field.type == FieldType::choice) io.say(numbered(field.choices, field.choices.size()));
  if (!models.empty()) io.say("  models the provider lists:" + numbered(models, kModelsShown));
  for (;;) {
    const auto offered = setup.offered(field);
    const std::string q = question(field, offered);
    std::string typed = trimmed(field.type == FieldType::secret ? io.ask_hidden(q) : io.ask(q));
    if (typed.empty()) {
      if (offered.source != Source::none || !field.required) return;
      io.say("  a value is required\n");
      continue;
    }
    std::size_t number = 0;
    if (is_number_in(typed, std::min(models.size(), kModelsShown), number))
      typed = models[number - 1];
    const CheckedAnswer checked = check_answer(field, typed);
    if (checked.error.empty()) return setup.answer(field, checked.text);
    io.say("  " + checked.error + "\n");
  }
}

bool asked_after_check(const ProviderSetup &setup, const ConfigField &field) {
  return field.requires_model || &field == model_field(setup.fields());
}

// Fields that decide whether the provider can be reached: asked before the others.
bool essential(const ConfigField &field) {
  return field.required || field.type == FieldType::secret || !field.env_var.empty();
}

// Everything that can change the check: essential fields, then, if wanted, the optional ones.
void ask_connection_fields(const Prompter &io, ProviderSetup &setup) {
  std::vector<const ConfigField *> optional;
  for (const auto &field : setup.fields()) {
    if (asked_after_check(setup, field)) continue;
    if (!setup.applies(field)) continue;
    if (essential(field))
      ask_field(io, setup, field);
    else
      optional.push_back(&field);
  }
  if (optional.empty()) return;
  std::vector<std::string> ids;
  for (const ConfigField *field : optional) ids.push_back(field->id);
  if (!io.yes_no(fmt::format("Change the {} optional settings too ({})?", optional.size(),
                             fmt::join(ids, ", ")),
                 false))
    return;
  for (const ConfigField *field : optional)
    if (setup.applies(*field)) ask_field(io, setup, *field);
}

// The model (offered from the listing) and the fields that depend on it.
void ask_model_fields(const Prompter &io, ProviderSetup &setup,
                      const std::vector<std::string> &models) {
  const ConfigField *model = model_field(setup.fields());
  if (model && setup.applies(*model)) ask_field(io, setup, *model, models);
  for (const auto &field : setup.fields()) {
    if (!field.requires_model || &field == model) continue;
    if (setup.applies(field)) ask_field(io, setup, field);
  }
}

// Asks and checks until the check passes or the user settles. Returns false to quit.
bool ask_and_check(const Prompter &io, ProviderSetup &setup, const InitOptions &options,
                   std::vector<std::string> &models) {
  for (;;) {
    ask_connection_fields(io, setup);
    if (options.no_verify) return true;
    io.say(fmt::format("Checking: asking {} for its models...\n", setup.provider()));
    const ModelListing listing = check_setup(setup);
    if (listing.ok) {
      io.say(fmt::format("OK: {} models.\n", listing.ids.size()));
      models = listing.ids;
      return true;
    }
    io.say("The check failed: " + listing.error + "\n");
    const char next = io.pick(
        "[r]etry with other answers, [s]ave anyway, [q]uit without saving [r]: ", "rsq", 'r');
    if (next == 's') return true;
    if (next == 'q') return false;
  }
}

}  // namespace

int run_interactive_init(const InitOptions &options) {
  const Prompter io;
  const auto saved = settings_for_init();
  io.say(
      fmt::format("Setting up the provider `amplifier run` and `amplifier chat` use without "
                  "--plan.\nSettings go to {}, keys to {}.\n\n",
                  settings_file().string(), keys_file().string()));
  const auto providers = installed_providers();
  if (providers.empty())
    throw std::runtime_error("no provider modules found on the module search path");
  const std::string provider = choose_provider(io, providers, saved);
  ProviderSetup setup = setup_with_help(io, provider, saved);
  io.say(fmt::format("\n{}: Enter keeps the value in [brackets].\n", provider));
  std::vector<std::string> models;
  if (!ask_and_check(io, setup, options, models)) {
    io.say("Nothing written.\n");
    return 1;
  }
  ask_model_fields(io, setup, models);
  save_setup(setup, saved);
  return 0;
}

}  // namespace amplifier::host::init
