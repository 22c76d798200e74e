#include "library_closure.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <deque>
#include <optional>

namespace amplifier::host::validate {
namespace fs = std::filesystem;
namespace {

std::string expand_origin(std::string dir, const fs::path &object) {
  const std::string origin = object.parent_path().string();
  for (std::string_view token : {"${ORIGIN}", "$ORIGIN"})
    for (auto at = dir.find(token); at != std::string::npos; at = dir.find(token))
      dir.replace(at, token.size(), origin);
  return dir;
}

std::vector<std::string> library_path_env() {
  std::vector<std::string> dirs;
  const char *env = std::getenv("LD_LIBRARY_PATH");
  std::string_view rest = env ? env : "";
  while (!rest.empty()) {
    auto colon = rest.find(':');
    if (auto part = rest.substr(0, colon); !part.empty()) dirs.emplace_back(part);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return dirs;
}

// What the system's dynamic linker resolves `name` to (its cache, its default folders).
std::optional<fs::path> system_library(const std::string &name) {
  void *handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!handle) return std::nullopt;
  link_map *map = nullptr;
  std::optional<fs::path> path;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
    path = fs::path(map->l_name);
  // Left loaded on purpose: the process exists for this check, and unloading system
  // libraries mid-process gains nothing.
  return path;
}

std::optional<fs::path> locate(const std::string &name, const fs::path &requester,
                               const ElfDynamicInfo &requester_info) {
  if (name.find('/') != std::string::npos) return fs::path(name);
  std::vector<std::string> dirs;
  if (requester_info.runpath.empty())
    for (const auto &d : requester_info.rpath) dirs.push_back(expand_origin(d, requester));
  for (const auto &d : library_path_env()) dirs.push_back(d);
  for (const auto &d : requester_info.runpath) dirs.push_back(expand_origin(d, requester));
  for (const auto &dir : dirs) {
    std::error_code ec;
    fs::path candidate = fs::path(dir) / name;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return system_library(name);
}

}  // namespace

LibraryClosure library_closure(const fs::path &module, const ElfDynamicInfo &info) {
  LibraryClosure closure;
  std::set<std::string> visited_names;
  struct Pending {
    std::string name;
    fs::path requester;
    const ElfDynamicInfo *requester_info;
  };
  std::deque<ElfDynamicInfo> infos;  // stable addresses for Pending::requester_info
  std::deque<Pending> queue;
  for (const auto &name : info.needed) queue.push_back({name, module, &info});
  while (!queue.empty()) {
    Pending next = queue.front();
    queue.pop_front();
    if (!visited_names.insert(next.name).second) continue;
    auto path = locate(next.name, next.requester, *next.requester_info);
    if (!path) {
      closure.missing.push_back(next.name);
      continue;
    }
    try {
      infos.push_back(read_elf_dynamic(*path));
    } catch (const ElfError &) {
      closure.missing.push_back(next.name);  // found something unreadable under that name
      continue;
    }
    const ElfDynamicInfo &library = infos.back();
    closure.found.push_back(*path);
    closure.defined.insert(library.exports.begin(), library.exports.end());
    for (const auto &name : library.needed) queue.push_back({name, *path, &library});
  }
  return closure;
}

}  // namespace amplifier::host::validate
