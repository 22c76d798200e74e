#include "amplifier/module_loader.hpp"

#include "amplifier/log.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

extern char **environ;

namespace amplifier {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kModuleSuffix = ".so";

using module_sources::is_valid_module_id;

// The names of the v1.0 functions of the kind's table that are NULL (every one is required).
std::vector<std::string_view> null_kind_functions(amp_module_kind kind, const void *table) {
  std::vector<std::string_view> missing;
  auto require = [&](bool present, std::string_view name) {
    if (!present) missing.push_back(name);
  };
  switch (kind) {
    case AMP_KIND_PROVIDER: {
      auto *t = static_cast<const amp_provider_vtable *>(table);
      require(t->get_info, "get_info");
      require(t->list_models, "list_models");
      require(t->complete, "complete");
      require(t->cancel, "cancel");
      break;
    }
    case AMP_KIND_TOOL: {
      auto *t = static_cast<const amp_tool_vtable *>(table);
      require(t->list_tools, "list_tools");
      require(t->execute, "execute");
      require(t->cancel, "cancel");
      break;
    }
    case AMP_KIND_ORCHESTRATOR: {
      auto *t = static_cast<const amp_orchestrator_vtable *>(table);
      require(t->execute, "execute");
      require(t->cancel, "cancel");
      break;
    }
    case AMP_KIND_CONTEXT: {
      auto *t = static_cast<const amp_context_vtable *>(table);
      require(t->add_message, "add_message");
      require(t->get_messages, "get_messages");
      require(t->get_messages_for_request, "get_messages_for_request");
      require(t->set_messages, "set_messages");
      require(t->clear, "clear");
      break;
    }
    default: break;
  }
  return missing;
}

// The ABI version problems: NULL (refused), a different major, a too new minimum minor.
// Returns false when the rest of the descriptor cannot be trusted to have this ABI's layout.
bool check_abi_version(const amp_module_descriptor *d, std::vector<DescriptorProblem> &out) {
  using Aspect = DescriptorProblem::Aspect;
  if (!d) {
    out.push_back({Aspect::AbiVersion, "its entry point refused to load (returned NULL)"});
    return false;
  }
  if (d->struct_size < offsetof(amp_module_descriptor, kind_table) + sizeof(void *)) {
    out.push_back({Aspect::Fields,
                   fmt::format("its descriptor is too small ({} bytes)", d->struct_size)});
    return false;
  }
  if (d->abi_major != AMP_ABI_VERSION_MAJOR) {
    out.push_back({Aspect::AbiVersion,
                   fmt::format("it was built for ABI {}.{}, the host speaks ABI {}.{} (major "
                               "differs)",
                               d->abi_major, d->abi_minor, AMP_ABI_VERSION_MAJOR,
                               AMP_ABI_VERSION_MINOR)});
    return false;
  }
  // Since 1.2 a module states the oldest host it runs on; before, it needed its own minor.
  const std::uint32_t needed = AMP_HAS_FIELD(d, amp_module_descriptor, min_host_minor)
                                   ? d->min_host_minor
                                   : d->abi_minor;
  if (needed > AMP_ABI_VERSION_MINOR)
    out.push_back({Aspect::AbiVersion,
                   fmt::format("it needs ABI {}.{}, newer than the host's {}.{}", d->abi_major,
                               needed, AMP_ABI_VERSION_MAJOR, AMP_ABI_VERSION_MINOR)});
  return true;
}

void check_kind_table(const amp_module_descriptor *d, std::vector<DescriptorProblem> &out) {
  using Aspect = DescriptorProblem::Aspect;
  const std::size_t minimum = minimum_kind_table_size(d->kind);
  if (minimum == 0) return;  // an unknown kind is a Fields problem, reported already
  auto *size = static_cast<const size_t *>(d->kind_table);
  if (!size || *size < minimum) {
    out.push_back({Aspect::TableSize,
                   fmt::format("its {} table is missing or too small", to_string(d->kind))});
    return;
  }
  if (*size >= kMaxPlausibleKindTableSize) {
    out.push_back({Aspect::TableSize,
                   fmt::format("its {} table claims an implausible size ({} bytes)",
                               to_string(d->kind), *size)});
    return;
  }
  auto missing = null_kind_functions(d->kind, d->kind_table);
  if (!missing.empty())
    out.push_back({Aspect::TableFunctions,
                   fmt::format("its {} table has NULL functions ({})", to_string(d->kind),
                               fmt::join(missing, ", "))});
}


}  // namespace

std::string_view to_string(amp_module_kind kind) {
  switch (kind) {
    case AMP_KIND_PROVIDER: return "provider";
    case AMP_KIND_ORCHESTRATOR: return "orchestrator";
    case AMP_KIND_CONTEXT: return "context";
    case AMP_KIND_TOOL: return "tool";
    case AMP_KIND_HOOK: return "hook";
    default: return "unknown";
  }
}

std::size_t minimum_kind_table_size(amp_module_kind kind) {
  switch (kind) {
    case AMP_KIND_PROVIDER: return offsetof(amp_provider_vtable, cancel) + sizeof(void *);
    case AMP_KIND_TOOL: return offsetof(amp_tool_vtable, cancel) + sizeof(void *);
    case AMP_KIND_ORCHESTRATOR: return offsetof(amp_orchestrator_vtable, cancel) + sizeof(void *);
    case AMP_KIND_CONTEXT: return offsetof(amp_context_vtable, clear) + sizeof(void *);
    case AMP_KIND_HOOK: return sizeof(size_t);
    default: return 0;
  }
}

std::vector<DescriptorProblem> descriptor_problems(const amp_module_descriptor *d) {
  using Aspect = DescriptorProblem::Aspect;
  std::vector<DescriptorProblem> problems;
  if (!check_abi_version(d, problems)) return problems;
  if (!d->id || !is_valid_module_id(d->id))
    problems.push_back({Aspect::Fields, "its descriptor has no valid id"});
  if (!d->version) problems.push_back({Aspect::Fields, "its descriptor has no version"});
  if (!d->create || !d->destroy)
    problems.push_back({Aspect::Fields, "its descriptor lacks create or destroy"});
  if (minimum_kind_table_size(d->kind) == 0)
    problems.push_back(
        {Aspect::Fields, fmt::format("its kind {} is unknown", static_cast<int>(d->kind))});
  check_kind_table(d, problems);
  return problems;
}

ModuleLoader::ModuleLoader(std::vector<fs::path> search_path) {
  if (search_path.empty()) {
    search_dirs_ = module_sources::default_search_dirs();
  } else {
    for (auto &dir : search_path) search_dirs_.push_back({std::move(dir), "search path"});
  }
}

std::vector<fs::path> ModuleLoader::default_search_path() {
  std::vector<fs::path> path;
  for (auto &dir : module_sources::default_search_dirs()) path.push_back(std::move(dir.dir));
  return path;
}

std::vector<fs::path> ModuleLoader::search_path() const {
  std::vector<fs::path> path;
  for (const auto &dir : search_dirs_) path.push_back(dir.dir);
  return path;
}

ModuleLocation ModuleLoader::locate(std::string_view id, std::string_view source) const {
  module_sources::check_module_id(id);
  const std::string variable = module_sources::override_variable(id);
  if (const char *value = std::getenv(variable.c_str()); value != nullptr && *value != '\0')
    return {module_sources::local_source_file(id, value), variable, value};
  if (!source.empty())
    return {module_sources::source_file(id, source), "plan source", std::string(source)};
  const std::string file_name = std::string(id) + std::string(kModuleSuffix);
  for (const auto &dir : search_dirs_) {
    std::error_code ec;
    fs::path candidate = dir.dir / file_name;
    if (fs::is_regular_file(candidate, ec)) return {std::move(candidate), dir.origin, {}};
  }
  std::string searched;
  for (const auto &dir : search_dirs_)
    searched += (searched.empty() ? "" : ":") + dir.dir.string();
  throw ModuleLoadError(
      fmt::format("module '{}': not found ({} in {})", id, file_name, searched));
}

std::shared_ptr<const LoadedModule> ModuleLoader::load(std::string_view id,
                                                       std::string_view source) {
  const ModuleLocation location = locate(id, source);
  log(LogLevel::Info, "loader",
      fmt::format("module '{}': {} ({})", id, location.file.string(), location.origin));
  auto module = load_file(location.file);
  // The entry point has run, nothing else: a library claiming another id is never created.
  if (module->id() != id)
    throw ModuleLoadError(fmt::format("module '{}': {} declares id '{}'", id,
                                      location.file.string(), module->id()));
  return module;
}

std::shared_ptr<const LoadedModule> ModuleLoader::load_file(const fs::path &file,
                                                         const amp_host_api *api) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(file, ec);
  if (ec) canonical = file;
  std::lock_guard lock(mutex_);
  if (auto it = by_file_.find(canonical.string()); it != by_file_.end())
    if (auto alive = it->second.lock()) return alive;

  auto library = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code load_error;
  library->load(canonical, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
                load_error);
  std::string label = canonical.filename().string();
  if (load_error)
    throw ModuleLoadError(fmt::format("module file {}: cannot be loaded as a shared library: {}",
                                      canonical.string(), load_error.message()));
  if (!library->has(AMP_ENTRY_SYMBOL))
    throw ModuleLoadError(fmt::format("module file {}: no entry symbol '{}' (not an amplifier "
                                      "module, or built without AMP_DEFINE_MODULE)",
                                      canonical.string(), AMP_ENTRY_SYMBOL));
  auto &entry = library->get<const amp_module_descriptor *(uint32_t, uint32_t,
                                                           const amp_host_api *)>(AMP_ENTRY_SYMBOL);
  const amp_module_descriptor *descriptor =
      entry(AMP_ABI_VERSION_MAJOR, AMP_ABI_VERSION_MINOR, api ? api : host_api_table());
  if (auto problems = descriptor_problems(descriptor); !problems.empty())
    throw ModuleLoadError(
        fmt::format("module file {}: {}", canonical.string(), problems.front().message));

  auto module = std::make_shared<LoadedModule>();
  module->file = canonical;
  module->descriptor = descriptor;
  module->library = library;
  by_file_[canonical.string()] = module;
  return module;
}

namespace {

// Every module file in `dir`, sorted by name.
std::vector<fs::path> module_files(const fs::path &dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    if (it->path().extension() == kModuleSuffix) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

// The AMPLIFIER_MODULE_<ID> variables set in the environment, as (variable, value).
std::vector<std::pair<std::string, std::string>> override_variables() {
  std::vector<std::pair<std::string, std::string>> found;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    const auto equals = text.find('=');
    std::string_view name = text.substr(0, equals);
    if (!name.starts_with("AMPLIFIER_MODULE_") || name == "AMPLIFIER_MODULE_PATH" ||
        equals == std::string_view::npos || equals + 1 == text.size())
      continue;
    found.emplace_back(std::string(name), std::string(text.substr(equals + 1)));
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

ModuleListing ModuleLoader::listing_of(fs::path file, std::string origin) {
  ModuleListing entry;
  entry.file = std::move(file);
  entry.origin = std::move(origin);
  try {
    entry.module = load_file(entry.file);
  } catch (const std::exception &e) {
    entry.error = e.what();
  }
  return entry;
}

std::vector<ModuleListing> ModuleLoader::list() {
  std::vector<ModuleListing> listing;
  std::set<std::string> seen_ids;
  // A file's id is its name until it loads; a loaded module goes by its descriptor's id.
  auto add = [&](ModuleListing entry) {
    std::string id = entry.module ? std::string(entry.module->id())
                                  : entry.file.stem().string();
    entry.shadowed = !seen_ids.insert(id).second;
    listing.push_back(std::move(entry));
  };
  for (auto &[variable, value] : override_variables()) {
    std::error_code ec;
    if (!fs::is_directory(value, ec)) {
      add(listing_of(value, variable));
      continue;
    }
    // A folder stands in for the one module whose variable this is.
    for (auto &file : module_files(value))
      if (module_sources::override_variable(file.stem().string()) == variable)
        add(listing_of(std::move(file), variable));
  }
  for (const auto &dir : search_dirs_)
    for (auto &file : module_files(dir.dir)) add(listing_of(std::move(file), dir.origin));
  return listing;
}

}  // namespace amplifier
