// `amplifier module install | remove | show`: the user module folder and one module's details.
#include "init_provider.hpp"
#include "commands.hpp"
#include "module_store.hpp"
#include "source_trust.hpp"

#include "amplifier/module_loader.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace amplifier::host {
namespace {
namespace json = boost::json;

int install(const std::string &source) {
  SourceModules found = modules_from_source(source);
  for (const auto &module : found.modules) {
    const auto installed = install_into_user_folder(module, {source, found.commit, {}});
    fmt::print("installed {} -> {}\n", module.id, installed.string());
  }
  return 0;
}

int remove(const std::string &id) {
  remove_from_user_folder(id);
  fmt::print("removed {}\n", id);
  ModuleLoader loader;
  try {  // another copy may now be the one that loads
    auto location = loader.locate(id);
    fmt::print("{} now resolves to {} ({})\n", id, location.file.string(), location.origin);
  } catch (const ModuleLoadError &) {
  }
  return 0;
}

std::string json_text(const json::value *value) {
  if (!value) return {};
  return value->is_string() ? std::string(value->get_string()) : json::serialize(*value);
}

// A provider's config fields, one line each, from a provider instance mounted with no config.
void print_config_fields(const std::string &id) {
  try {
    init::ProviderInstance instance(id, {});
    const json::value *fields = instance.info().is_object()
                                    ? instance.info().as_object().if_contains("config_fields")
                                    : nullptr;
    if (!fields || !fields->is_array() || fields->get_array().empty()) {
      fmt::print("config fields: none\n");
      return;
    }
    fmt::print("config fields:\n");
    for (const auto &field : fields->get_array()) {
      if (!field.is_object()) continue;
      const auto &f = field.get_object();
      std::string line =
          fmt::format("  {:<24} {:<8} {}", json_text(f.if_contains("id")),
                      json_text(f.if_contains("field_type")), json_text(f.if_contains("prompt")));
      if (auto env = json_text(f.if_contains("env_var")); !env.empty())
        line += fmt::format(" [env {}]", env);
      if (const json::value *d = f.if_contains("default"); d && !d->is_null())
        line += fmt::format(" [default {}]", json::serialize(*d));
      fmt::print("{}\n", line);
    }
  } catch (const std::exception &e) {
    fmt::print("config fields: unavailable ({})\n", e.what());
  }
}

int show(const std::string &id) {
  ModuleLoader loader;
  const ModuleLocation location = loader.locate(id);
  auto module = loader.load(id);
  const amp_module_descriptor &d = *module->descriptor;
  const std::uint32_t min_minor =
      AMP_HAS_FIELD(&d, amp_module_descriptor, min_host_minor) ? d.min_host_minor : d.abi_minor;
  fmt::print("id:          {}\nkind:        {}\nversion:     {}\n", d.id, to_string(d.kind),
             d.version);
  if (d.description) fmt::print("description: {}\n", d.description);
  fmt::print("ABI:         built with {}.{}, runs on hosts {}.{} and newer\n", d.abi_major,
             d.abi_minor, d.abi_major, min_minor);
  fmt::print("file:        {}\nfound in:    {}\n", location.file.string(), location.origin);
  if (auto record = source_record_of(location.file)) {
    fmt::print("source:      {}{}\n", record->source,
               record->commit.empty() ? "" : " (commit " + record->commit + ")");
    if (!record->installed_at.empty()) fmt::print("installed:   {}\n", record->installed_at);
  } else if (!location.source.empty()) {
    fmt::print("source:      {}\n", location.source);
  }
  for (const auto &entry : loader.list())
    if (entry.shadowed && entry.module && entry.module->id() == id)
      fmt::print("also in:     {} ({}; not used)\n", entry.file.string(), entry.origin);
  if (d.kind == AMP_KIND_PROVIDER) print_config_fields(id);
  return 0;
}

// `module trust SOURCE | --list | --remove SOURCE`: the operator's record of trusted sources.
int trust_source(const std::string &text, bool remove) {
  const GitSource source = parse_git_source(text);
  if (remove) {
    const std::size_t removed = source_trust::untrust(source);
    if (removed == 0)
      throw std::runtime_error(source_trust::source_key(source) + " was not trusted");
    fmt::print("no longer trusted: {} ({} commit{})\n", source_trust::source_key(source), removed,
               removed == 1 ? "" : "s");
    return 0;
  }
  const std::string commit = resolve_git_commit(source);
  source_trust::trust(source, commit);
  fmt::print("trusted: {} at commit {} (in {})\n", source_trust::source_key(source), commit,
             source_trust::file().string());
  return 0;
}

int list_trusted_sources() {
  for (const auto &entry : source_trust::trusted())
    fmt::print("{} {}\n", entry.commit, entry.source);
  return 0;
}

// Runs a command, turning its failure into one clear line and exit code 1.
template <class Fn>
int guarded(Fn &&fn) {
  try {
    return fn();
  } catch (const std::exception &e) {
    fmt::print(stderr, "amplifier: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace

void add_module_install_commands(CLI::App &modules, int &exit_code) {
  auto source = std::make_shared<std::string>();
  CLI::App *install_cmd =
      modules.add_subcommand("install",
                             "Build (if needed) and install a module into the user module folder "
                             "($XDG_DATA_HOME/amplifier/modules), where it takes precedence over "
                             "AMPLIFIER_MODULE_PATH and the built-in modules");
  install_cmd
      ->add_option("SOURCE", *source,
                   "A .so, a folder of them, a project folder (CMakeLists.txt, Cargo.toml or "
                   "Makefile; built against this host's SDK), file://..., or "
                   "git+https://host/repo[@ref][#subdirectory=path] / git+file:///repo[@ref]")
      ->required();
  install_cmd->callback(
      [source, &exit_code] { exit_code = guarded([&] { return install(*source); }); });

  auto trusted_source = std::make_shared<std::string>();
  auto list_trusted = std::make_shared<bool>(false);
  auto untrust = std::make_shared<bool>(false);
  CLI::App *trust_cmd = modules.add_subcommand(
      "trust",
      "Trust a git source at the commit its ref names now: plans naming it are then fetched and "
      "built without asking (its build runs as you). Recorded in "
      "$XDG_CONFIG_HOME/amplifier/trusted-sources");
  trust_cmd->add_option("SOURCE", *trusted_source,
                        "git+https://host/repo[@ref][#subdirectory=path] (also git+file, git+ssh)");
  trust_cmd->add_flag("--list", *list_trusted, "List the trusted sources and their commits");
  trust_cmd->add_flag("--remove", *untrust, "Stop trusting SOURCE, at every commit");
  trust_cmd->callback([=, &exit_code] {
    exit_code = guarded([&] {
      if (*list_trusted) return list_trusted_sources();
      if (trusted_source->empty()) throw std::runtime_error("module trust: name a SOURCE, or --list");
      return trust_source(*trusted_source, *untrust);
    });
  });

  auto id = std::make_shared<std::string>();
  CLI::App *remove_cmd =
      modules.add_subcommand("remove", "Remove a module from the user module folder");
  remove_cmd->add_option("ID", *id, "The module id")->required();
  remove_cmd->callback([id, &exit_code] { exit_code = guarded([&] { return remove(*id); }); });

  auto show_id = std::make_shared<std::string>();
  CLI::App *show_cmd = modules.add_subcommand(
      "show", "One module: descriptor, ABI, file, where it was found, source, config fields");
  show_cmd->add_option("ID", *show_id, "The module id")->required();
  show_cmd->callback(
      [show_id, &exit_code] { exit_code = guarded([&] { return show(*show_id); }); });
}

}  // namespace amplifier::host
