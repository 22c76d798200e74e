// Finds modules by id on a search path and loads each library once (Boost.DLL).
#pragma once
#include "amplifier/module_sources.hpp"
#include "amplifier_plugin.h"

#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace amplifier {

// A loaded module library. Shared ownership keeps the library mapped while anything of it
// (an instance, a descriptor, a function pointer) is alive.
struct LoadedModule {
  std::filesystem::path file;
  const amp_module_descriptor *descriptor = nullptr;  // module-owned, static
  std::shared_ptr<void> library;  // the Boost.DLL shared_library, type-erased

  std::string_view id() const { return descriptor->id; }
};

std::string_view to_string(amp_module_kind kind);

// One thing wrong with the descriptor an entry point returned, and which part of the contract
// it breaks (the conformance kit, `amplifier module validate`, reports each part as a check).
struct DescriptorProblem {
  enum class Aspect { AbiVersion, Fields, TableSize, TableFunctions };
  Aspect aspect;
  std::string message;
};

// Every problem of `descriptor` (NULL: the entry point refused the host), in the order the
// loader checks them; the loader refuses a module for the first. Checks that depend on an
// earlier one (a readable descriptor, the same major, a known kind, a table of the minimum
// size) are skipped when it fails. Empty when the module is loadable.
std::vector<DescriptorProblem> descriptor_problems(const amp_module_descriptor *descriptor);

// The size of `kind`'s ABI 1.0 table, the smallest a module may have; 0 for an unknown kind.
std::size_t minimum_kind_table_size(amp_module_kind kind);
// A kind table claiming this many bytes or more is corrupt (tables hold a few pointers).
inline constexpr std::size_t kMaxPlausibleKindTableSize = 64 * 1024;

struct ModuleListing {
  std::filesystem::path file;
  std::shared_ptr<const LoadedModule> module;  // null when it failed to load
  std::string error;                           // why it failed
  std::string origin;                          // as ModuleLocation::origin
  bool shadowed = false;  // an earlier entry has the same id: this one is never loaded by id
};

class ModuleLoader {
 public:
  // The search folders of module_sources.hpp (user folder, AMPLIFIER_MODULE_PATH, built-in);
  // a non-empty `search_path` replaces them (tests, embedders).
  explicit ModuleLoader(std::vector<std::filesystem::path> search_path = {});

  // module_sources::default_search_dirs(), without their origins.
  static std::vector<std::filesystem::path> default_search_path();

  std::vector<std::filesystem::path> search_path() const;
  const std::vector<SearchDir> &search_dirs() const { return search_dirs_; }

  // Where `id` resolves, in the order module_sources.hpp gives (its override variable, then
  // `source`, then the search folders). Throws ModuleLoadError: invalid id, a source that
  // names nothing, not found (naming every folder searched).
  ModuleLocation locate(std::string_view id, std::string_view source = {}) const;

  // Locates `id` and loads it (once; later calls share it), logging where it came from at
  // info level. Throws ModuleLoadError naming the id, file and reason: not found, not a shared
  // library, no entry symbol, entry refused, ABI mismatch, a descriptor declaring another id
  // (refused right after the entry point ran, before any instance exists).
  std::shared_ptr<const LoadedModule> load(std::string_view id, std::string_view source = {});

  // Loads a specific file (same checks; the id is taken from the descriptor). The entry point
  // gets `api` (default: host_api_table()); amplifier-module-host passes its own, which
  // forwards every call to the host that runs it.
  std::shared_ptr<const LoadedModule> load_file(const std::filesystem::path &file,
                                                const amp_host_api *api = nullptr);

  // Every module the resolution order can see without a plan: the AMPLIFIER_MODULE_<ID>
  // overrides, then every *.so of each search folder, loaded or not. A module found again
  // later is listed with `shadowed` set.
  std::vector<ModuleListing> list();

 private:
  ModuleListing listing_of(std::filesystem::path file, std::string origin);

  std::vector<SearchDir> search_dirs_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<const LoadedModule>> by_file_;
};

// The host's function table handed to every module (static, process-wide).
const amp_host_api *host_api_table();

}  // namespace amplifier
