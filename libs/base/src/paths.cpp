#include "amplifier/module_support/paths.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace amplifier::module_support {

std::filesystem::path home_directory() {
  if (const char *home = std::getenv("HOME"); home && *home) return home;
  // getpwuid_r: getpwuid's static buffer is not safe when modules run on several threads.
  long size_hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size_hint > 0 ? static_cast<std::size_t>(size_hint) : 16384);
  passwd entry{};
  passwd *found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found &&
      found->pw_dir && *found->pw_dir) {
    return found->pw_dir;
  }
  throw std::runtime_error("cannot expand '~': HOME is not set and the user has no home entry");
}

std::filesystem::path expand_home(std::string_view path) {
  if (path == "~") return home_directory();
  if (path.starts_with("~/")) return home_directory() / std::filesystem::path(path.substr(2));
  return std::filesystem::path(path);
}

namespace {
bool is_safe_path_component(std::string_view id) {
  return !id.empty() && id != "." && id.find('/') == std::string_view::npos &&
         id.find('\\') == std::string_view::npos && id.find("..") == std::string_view::npos &&
         id.find('\0') == std::string_view::npos;
}
}  // namespace

std::filesystem::path expand_path_template(std::string_view path_template,
                                           std::string_view session_id) {
  static constexpr std::string_view kPlaceholder = "{session_id}";
  std::string expanded;
  std::size_t start = 0;
  for (std::size_t hit; (hit = path_template.find(kPlaceholder, start)) != std::string_view::npos;
       start = hit + kPlaceholder.size()) {
    if (!is_safe_path_component(session_id)) {
      throw std::invalid_argument("cannot expand {session_id} in '" + std::string(path_template) +
                                  "': session id '" + std::string(session_id) +
                                  "' is empty or not a plain file name");
    }
    expanded.append(path_template.substr(start, hit - start));
    expanded.append(session_id);
  }
  expanded.append(path_template.substr(start));
  return expand_home(expanded);
}

}  // namespace amplifier::module_support
