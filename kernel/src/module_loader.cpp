#include "amplifier/module_loader.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <set>

namespace amplifier {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kModuleSuffix = ".so";

// A module id becomes a file name, so only a safe alphabet is accepted.
bool is_valid_module_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  auto ok_first = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!ok_first(id.front())) return false;
  return std::all_of(id.begin(), id.end(), [&](char c) {
    return ok_first(c) || c == '-' || c == '_' || c == '.';
  }) && id.find("..") == std::string_view::npos;
}

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

fs::path executable_dir() {
  try {
    return boost::dll::program_location().parent_path();
  } catch (...) {
    return {};
  }
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

ModuleLoader::ModuleLoader(std::vector<fs::path> search_path)
    : search_path_(search_path.empty() ? default_search_path() : std::move(search_path)) {}

std::vector<fs::path> ModuleLoader::default_search_path() {
  std::vector<fs::path> path;
  if (const char *env = std::getenv("AMPLIFIER_MODULE_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      auto colon = rest.find(':');
      auto part = rest.substr(0, colon);
      if (!part.empty()) path.emplace_back(part);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  path.emplace_back(AMP_BUILD_MODULE_DIR);
  if (auto exe = executable_dir(); !exe.empty())
    path.push_back(exe.parent_path() / AMP_INSTALL_MODULE_DIR);
  return path;
}

std::shared_ptr<const LoadedModule> ModuleLoader::load(std::string_view id) {
  if (!is_valid_module_id(id))
    throw ModuleLoadError(fmt::format(
        "module '{}': not a valid module id (lower-case letters, digits, '-', '_', '.')", id));
  std::string file_name = std::string(id) + std::string(kModuleSuffix);
  for (const auto &dir : search_path_) {
    std::error_code ec;
    fs::path candidate = dir / file_name;
    if (fs::is_regular_file(candidate, ec)) {
      auto module = load_file(candidate);
      if (module->id() != id)
        throw ModuleLoadError(fmt::format("module '{}': {} declares id '{}'", id,
                                          candidate.string(), module->id()));
      return module;
    }
  }
  std::string searched;
  for (const auto &dir : search_path_) searched += (searched.empty() ? "" : ":") + dir.string();
  throw ModuleLoadError(
      fmt::format("module '{}': not found ({} in {})", id, file_name, searched));
}

std::shared_ptr<const LoadedModule> ModuleLoader::load_file(const fs::path &file) {
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
      entry(AMP_ABI_VERSION_MAJOR, AMP_ABI_VERSION_MINOR, host_api_table());
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

std::vector<ModuleListing> ModuleLoader::list() {
  std::vector<ModuleListing> listing;
  std::set<std::string> seen_names;
  for (const auto &dir : search_path_) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
      if (it->path().extension() == kModuleSuffix) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto &file : files) {
      if (!seen_names.insert(file.filename().string()).second) continue;  // shadowed
      ModuleListing entry;
      entry.file = file;
      try {
        entry.module = load_file(file);
      } catch (const std::exception &e) {
        entry.error = e.what();
      }
      listing.push_back(std::move(entry));
    }
  }
  return listing;
}

}  // namespace amplifier
