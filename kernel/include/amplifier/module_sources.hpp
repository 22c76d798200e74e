// Where module libraries come from: the resolution order the loader follows, the folders it
// searches and the `source:` forms a mount plan may give. First match wins:
//   1. AMPLIFIER_MODULE_<ID>   a file or folder, for development (module_override_variable);
//   2. the plan's `source:`    a .so, a folder holding <id>.so, file://…, or a remote source
//                              (git+…) that the host's RemoteSourceResolver turns into one;
//   3. the user module folder  $XDG_DATA_HOME/amplifier/modules (`amplifier module install`);
//   4. AMPLIFIER_MODULE_PATH   ':'-separated absolute folders (relative or empty entries are
//                              ignored with a warning: the working directory is never searched);
//   5. the built-in folder     <prefix>/lib/amplifier/modules next to the installed host, or the
//                              build tree's modules when the program runs from the build tree.
#pragma once
#include "amplifier_plugin.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

class ModuleLoadError : public std::runtime_error {
 public:
  // `status`: what the module's create returned when it was the module that refused
  // (AMP_BUSY: what it needs is held elsewhere right now), else AMP_ERROR.
  explicit ModuleLoadError(const std::string &what, amp_status status = AMP_ERROR)
      : std::runtime_error(what), status_(status) {}
  amp_status status() const noexcept { return status_; }

 private:
  amp_status status_;
};

// One folder searched for `<id>.so`, and why it is searched ("user folder",
// "AMPLIFIER_MODULE_PATH", "built-in", or "search path" for a path a caller chose).
struct SearchDir {
  std::filesystem::path dir;
  std::string origin;
};

// Where a module id resolved to.
struct ModuleLocation {
  std::filesystem::path file;
  std::string origin;  // "AMPLIFIER_MODULE_X", "plan source", or the SearchDir's origin
  std::string source;  // the source text that led there, when there was one
};

// Turns a remote source (git+https://…, git+file://…) into a local .so or a folder holding
// `<id>.so`, fetching and building it as needed. Throws ModuleLoadError naming the problem.
using RemoteSourceResolver =
    std::function<std::filesystem::path(std::string_view id, std::string_view source)>;

namespace module_sources {

// Lower-case letters, digits, '-', '_', '.'; starts with a letter or digit; no "..", no '/',
// no NUL; at most 128 characters. A module id becomes a file name, so nothing else passes.
bool is_valid_module_id(std::string_view id);
// Throws ModuleLoadError when `id` is not valid.
void check_module_id(std::string_view id);

// "AMPLIFIER_MODULE_" + the id upper-cased with every other character as '_'
// (provider-mock -> AMPLIFIER_MODULE_PROVIDER_MOCK).
std::string override_variable(std::string_view id);

// Sources handed to the RemoteSourceResolver (git+…); everything else is local.
bool is_remote(std::string_view source);

// What is wrong with the form of `source` ("" when nothing): an unsupported scheme, a remote
// source without a repository, a NUL byte. Whether it exists is only known when it is used.
std::string source_problem(std::string_view source);

// The host's resolver for remote sources (process-wide; thread-safe). Without one, a remote
// source is an error saying the host cannot fetch it.
void set_remote_resolver(RemoteSourceResolver resolver);

// The path a local source names: itself, or a file:// URL's path with %XX decoded. Throws
// ModuleLoadError for a file:// URL without an absolute path.
std::filesystem::path local_path(std::string_view source);

// The library a local source names for module `id`: the file itself, or `<id>.so` in the
// folder. `source` may be a path or a file:// URL (percent escapes decoded). Throws
// ModuleLoadError when it names nothing usable.
std::filesystem::path local_source_file(std::string_view id, std::string_view source);

// The library `source` names for `id`, remote sources fetched through the resolver.
std::filesystem::path source_file(std::string_view id, std::string_view source);

// $XDG_DATA_HOME/amplifier/modules (see user_dirs.hpp).
std::filesystem::path user_module_dir();

// Folders 3 to 5 of the resolution order, as they are now.
std::vector<SearchDir> default_search_dirs();

// The built-in module folder (5).
std::filesystem::path built_in_module_dir();

// This host's SDK, for building modules from source: the installation the program runs from,
// or the build tree's SDK prefix (cmake/AmplifierPackage.cmake).
struct SdkLocation {
  std::filesystem::path prefix;         // for CMAKE_PREFIX_PATH
  std::filesystem::path pkgconfig_dir;  // holds amplifier-plugin.pc, for PKG_CONFIG_PATH
};
// nullopt when neither is there.
std::optional<SdkLocation> sdk_location();

}  // namespace module_sources
}  // namespace amplifier
