#include "amplifier/module_sources.hpp"

#include "amplifier/isolation.hpp"
#include "amplifier/log.hpp"
#include "amplifier/user_dirs.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>

namespace amplifier::module_sources {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kLoaderLog = "loader";
constexpr std::string_view kFileScheme = "file://";

std::mutex g_resolver_mutex;
RemoteSourceResolver g_remote_resolver;

fs::path program_dir() {
  try {
    return boost::dll::program_location().parent_path();
  } catch (...) {
    return {};
  }
}

// Whether the running program is one of this build tree's (the host, a test, a benchmark).
bool runs_from_build_tree() {
  const fs::path dir = program_dir();
  if (dir.empty()) return true;
  const fs::path tree = fs::path(AMP_BUILD_TREE_DIR).lexically_normal();
  auto [tree_end, dir_it] = std::mismatch(tree.begin(), tree.end(), dir.begin(), dir.end());
  return tree_end == tree.end();
}

// An installed host's prefix: the folder above its bin/.
fs::path install_prefix() {
  const fs::path dir = program_dir();
  return dir.empty() ? fs::path() : dir.parent_path();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The path of a file:// URL: "file:///abs" or "file://localhost/abs", %XX decoded.
std::string file_url_path(std::string_view url) {
  std::string_view rest = url.substr(kFileScheme.size());
  if (rest.starts_with("localhost/")) rest.remove_prefix(std::string_view("localhost").size());
  if (!rest.starts_with("/"))
    throw ModuleLoadError(
        fmt::format("source '{}': a file:// URL needs an absolute path "
                    "(file:///path/to/module.so)",
                    url));
  std::string path;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && hex_digit(rest[i + 1]) >= 0 &&
        hex_digit(rest[i + 2]) >= 0) {
      path += static_cast<char>(hex_digit(rest[i + 1]) * 16 + hex_digit(rest[i + 2]));
      i += 2;
    } else {
      path += rest[i];
    }
  }
  if (path.find('\0') != std::string::npos)
    throw ModuleLoadError(fmt::format("source '{}': the path holds a NUL byte", url));
  return path;
}

// Warns once per process about each AMPLIFIER_MODULE_PATH entry that is ignored.
void warn_ignored_entry(const std::string &entry) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (!warned.insert(entry).second) return;
  log(LogLevel::Warning, kLoaderLog,
      entry.empty()
          ? "AMPLIFIER_MODULE_PATH has an empty entry; ignored (the working directory is never "
            "searched)"
          : fmt::format("AMPLIFIER_MODULE_PATH entry '{}' is not an absolute path; ignored (the "
                        "working directory is never searched)",
                        entry));
}

std::vector<fs::path> module_path_entries() {
  std::vector<fs::path> dirs;
  const char *env = std::getenv("AMPLIFIER_MODULE_PATH");
  if (env == nullptr || *env == '\0') return dirs;
  std::string_view rest(env);
  for (;;) {
    const auto colon = rest.find(':');
    const std::string entry(rest.substr(0, colon));
    if (!entry.empty() && fs::path(entry).is_absolute())
      dirs.emplace_back(entry);
    else
      warn_ignored_entry(entry);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return dirs;
}

}  // namespace

bool is_valid_module_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(id.front())) return false;
  return std::all_of(id.begin(), id.end(),
                     [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; }) &&
         id.find("..") == std::string_view::npos;
}

void check_module_id(std::string_view id) {
  if (is_valid_module_id(id)) return;
  std::string shown;
  for (char c : id.substr(0, 80)) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
  throw ModuleLoadError(
      fmt::format("module '{}': not a valid module id (lower-case letters, "
                  "digits, '-', '_', '.'; no '/', no '..')",
                  shown));
}

std::string override_variable(std::string_view id) {
  std::string name = "AMPLIFIER_MODULE_";
  for (char c : id) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    name += alnum ? static_cast<char>(c >= 'a' ? c - 'a' + 'A' : c) : '_';
  }
  return name;
}

bool is_remote(std::string_view source) { return source.starts_with("git+"); }

std::string source_problem(std::string_view source) {
  if (source.find('\0') != std::string_view::npos) return "the source holds a NUL byte";
  if (is_remote(source)) {
    // Code that will be built and loaded never comes over a connection anyone between could
    // rewrite.
    if (source.starts_with("git+http://"))
      return fmt::format("source '{}': git+http is not accepted (the code would come "
                         "unauthenticated); use git+https:// or git+ssh://",
                         source);
    for (std::string_view scheme : {"git+https://", "git+file://", "git+ssh://"})
      if (source.starts_with(scheme) && source.size() > scheme.size()) return {};
    return fmt::format(
        "source '{}': a git source is git+https://host/repo[@ref][#subdirectory="
        "path] or git+file:///path/to/repo[@ref]",
        source);
  }
  if (source.find("://") != std::string_view::npos && !source.starts_with(kFileScheme))
    return fmt::format(
        "source '{}': unsupported scheme (use a path, file://, git+https:// or "
        "git+file://)",
        source);
  return {};
}

void set_remote_resolver(RemoteSourceResolver resolver) {
  std::lock_guard lock(g_resolver_mutex);
  g_remote_resolver = std::move(resolver);
}

fs::path local_path(std::string_view source) {
  return source.starts_with(kFileScheme) ? fs::path(file_url_path(source))
                                         : fs::path(std::string(source));
}

fs::path local_source_file(std::string_view id, std::string_view source) {
  if (source.empty()) throw ModuleLoadError(fmt::format("module '{}': empty source", id));
  if (std::string problem = source_problem(source); !problem.empty())
    throw ModuleLoadError(fmt::format("module '{}': {}", id, problem));
  const fs::path path = source.starts_with(kFileScheme) ? fs::path(file_url_path(source))
                                                        : fs::path(std::string(source));
  std::error_code error;
  const auto status = fs::status(path, error);
  if (fs::is_regular_file(status)) return path;
  if (fs::is_directory(status)) {
    const fs::path file = path / (std::string(id) + ".so");
    if (fs::is_regular_file(file, error)) return file;
    throw ModuleLoadError(
        fmt::format("module '{}': source folder {} has no {}.so", id, path.string(), id));
  }
  throw ModuleLoadError(fmt::format("module '{}': source {} does not exist", id, path.string()));
}

fs::path source_file(std::string_view id, std::string_view source) {
  if (!is_remote(source)) return local_source_file(id, source);
  RemoteSourceResolver resolver;
  {
    std::lock_guard lock(g_resolver_mutex);
    resolver = g_remote_resolver;
  }
  if (!resolver)
    throw ModuleLoadError(fmt::format(
        "module '{}': source '{}' must be fetched, and this program cannot fetch sources (the "
        "amplifier host can: amplifier module install)",
        id, source));
  return local_source_file(id, resolver(id, source).string());
}

fs::path user_module_dir() { return user_dirs::data() / "modules"; }

fs::path built_in_module_dir() {
  const fs::path installed = install_prefix() / AMP_INSTALL_MODULE_DIR;
  std::error_code error;
  if (!runs_from_build_tree() || fs::is_directory(installed, error)) return installed;
  return AMP_BUILD_MODULE_DIR;
}

}  // namespace amplifier::module_sources

namespace amplifier {

std::filesystem::path module_host_program() {
  if (const char *set = std::getenv("AMPLIFIER_MODULE_HOST"); set && *set) return set;
  const auto installed = module_sources::install_prefix() / AMP_INSTALL_MODULE_HOST;
  std::error_code error;
  if (!module_sources::runs_from_build_tree() || std::filesystem::is_regular_file(installed, error))
    return installed;
  return AMP_BUILD_MODULE_HOST;
}

}  // namespace amplifier

namespace amplifier::module_sources {

std::vector<SearchDir> default_search_dirs() {
  std::vector<SearchDir> dirs;
  try {
    dirs.push_back({user_module_dir(), "user folder"});
  } catch (const std::exception &e) {  // no home directory: there is no user folder either
    log(LogLevel::Info, kLoaderLog, fmt::format("no user module folder: {}", e.what()));
  }
  for (auto &dir : module_path_entries()) dirs.push_back({std::move(dir), "AMPLIFIER_MODULE_PATH"});
  dirs.push_back({built_in_module_dir(), "built-in"});
  return dirs;
}

std::optional<SdkLocation> sdk_location() {
  // <prefix>/<libdir>/cmake/Amplifier and <prefix>/<libdir>/pkgconfig.
  const fs::path cmake_dir = AMP_INSTALL_CMAKE_DIR;
  const fs::path pkgconfig_dir = cmake_dir.parent_path().parent_path() / "pkgconfig";
  auto at = [&](const fs::path &prefix) -> std::optional<SdkLocation> {
    std::error_code error;
    if (prefix.empty() || !fs::is_regular_file(prefix / cmake_dir / "AmplifierConfig.cmake", error))
      return std::nullopt;
    return SdkLocation{prefix, prefix / pkgconfig_dir};
  };
  if (auto installed = at(install_prefix())) return installed;
  if (runs_from_build_tree()) return at(AMP_BUILD_SDK_PREFIX);
  return std::nullopt;
}

}  // namespace amplifier::module_sources
