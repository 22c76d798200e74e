#include "commands.hpp"

#include "amplifier/module_loader.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace amplifier::host {
namespace {

int list_modules(bool as_json) {
  ModuleLoader loader;
  auto listing = loader.list();
  boost::json::array rows;
  if (!as_json)
    fmt::print("{:<22} {:<13} {:<9} {:<5} {}\n", "ID", "KIND", "VERSION", "ABI", "FILE");
  int broken = 0;
  for (const auto &entry : listing) {
    if (!entry.module) {
      ++broken;
      if (as_json)
        rows.push_back({{"file", entry.file.string()}, {"error", entry.error}});
      else
        fmt::print(stderr, "amplifier: warning: {}\n", entry.error);
      continue;
    }
    const amp_module_descriptor &d = *entry.module->descriptor;
    std::string abi = fmt::format("{}.{}", d.abi_major, d.abi_minor);
    if (as_json)
      rows.push_back({{"id", d.id}, {"kind", to_string(d.kind)}, {"version", d.version},
                      {"abi", abi}, {"file", entry.file.string()},
                      {"description", d.description ? d.description : ""}});
    else
      fmt::print("{:<22} {:<13} {:<9} {:<5} {}\n", d.id, to_string(d.kind), d.version, abi,
                 entry.file.string());
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
                                                   "ABI version and file");
  list->add_flag("--json", *as_json, "Print a JSON array instead of a table");
  list->callback([as_json, &exit_code] { exit_code = list_modules(*as_json); });
  add_module_validate_command(*modules, exit_code);
}

}  // namespace amplifier::host
