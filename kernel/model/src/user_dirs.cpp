#include "amplifier/user_dirs.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace amplifier::user_dirs {
namespace fs = std::filesystem;

namespace {

// `variable` when it holds an absolute path, else home() / `fallback`; then "amplifier".
fs::path xdg_dir(const char *variable, const char *fallback) {
  const char *value = std::getenv(variable);
  if (value != nullptr && *value != '\0' && fs::path(value).is_absolute())
    return fs::path(value) / "amplifier";
  return home() / fallback / "amplifier";
}

}  // namespace

fs::path home() {
  if (const char *home = std::getenv("HOME"); home != nullptr && *home != '\0') return home;
  long size_hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size_hint > 0 ? static_cast<std::size_t>(size_hint) : 16384);
  passwd entry{};
  passwd *found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found &&
      found->pw_dir && *found->pw_dir)
    return found->pw_dir;
  throw std::runtime_error("HOME is not set and the user has no home directory entry");
}

fs::path data() { return xdg_dir("XDG_DATA_HOME", ".local/share"); }
fs::path cache() { return xdg_dir("XDG_CACHE_HOME", ".cache"); }
fs::path config() { return xdg_dir("XDG_CONFIG_HOME", ".config"); }

}  // namespace amplifier::user_dirs
