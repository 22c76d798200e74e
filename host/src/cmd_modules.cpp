#include "commands.hpp"

#include "module_store.hpp"

#include "amplifier/module_loader.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace amplifier::host {
namespace {

// Where a listed module came from: its install record's source, or the folder's origin.
std::string source_of(const ModuleListing &entry) {
  if (auto record = source_record_of(entry.file); record && !record->source.empty())
    return record->source;
  return entry.origin;
}

int list_modules(bool as_json, bool verbose) {
  ModuleLoader loader;
  auto listing = loader.list();
  boost::json::array rows;
  if (!as_json)
    fmt::print("{:<22} {:<13} {:<9} {:<5} {:<22} {}\n", "ID", "KIND", "VERSION", "ABI", "SOURCE",
               "FILE");
  for (const auto &entry : listing) {
    if (entry.shadowed && !verbose) continue;
    if (!entry.module) {
      if (as_json)
        rows.push_back({{"file", entry.file.string()}, {"origin", entry.origin},
                        {"error", entry.error}});
      else
        fmt::print(stderr, "amplifier: warning: {}\n", entry.error);
      continue;
    }
    const amp_module_descriptor &d = *entry.module->descriptor;
    std::string abi = fmt::format("{}.{}", d.abi_major, d.abi_minor);
    const std::string source = source_of(entry);
    if (as_json)
      rows.push_back({{"id", d.id}, {"kind", to_string(d.kind)}, {"version", d.version},
                      {"abi", abi}, {"file", entry.file.string()}, {"origin", entry.origin},
                      {"source", source}, {"shadowed", entry.shadowed},
                      {"description", d.description ? d.description : ""}});
    else
      fmt::print("{:<22} {:<13} {:<9} {:<5} {:<22} {}{}\n", d.id, to_string(d.kind), d.version,
                 abi, source, entry.file.string(), entry.shadowed ? "  (shadowed: not used)" : "");
  }
  if (as_json) fmt::print("{}\n", boost::json::serialize(rows));
  if (listing.empty()) {
    std::string dirs;
    for (const auto &d : loader.search_path()) dirs += (dirs.empty() ? "" : ":") + d.string();
    fmt::print(stderr, "amplifier: warning: no modules found in {}\n", dirs);
  }
  return 0;
}

}  // namespace

void add_modules_command(CLI::App &app, int &exit_code) {
  // `module` (the upstream spelling); `modules` stays as an alias for older scripts.
  CLI::App *modules = app.add_subcommand("module", "Inspect, install and validate modules");
  modules->alias("modules");
  modules->require_subcommand(1);
  auto as_json = std::make_shared<bool>(false);
  CLI::App *list = modules->add_subcommand("list", "List every module found: id, kind, version, "
                                                   "ABI version, source and file");
  auto verbose = std::make_shared<bool>(false);
  list->add_flag("--json", *as_json, "Print a JSON array instead of a table");
  list->add_flag("--verbose,--all", *verbose,
                 "Also list copies hidden by an earlier one (a module found in two places)");
  list->callback([as_json, verbose, &exit_code] {
    exit_code = list_modules(*as_json, *verbose);
  });
  add_module_install_commands(*modules, exit_code);
  add_module_validate_command(*modules, exit_code);
}

}  // namespace amplifier::host
