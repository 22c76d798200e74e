// Building module projects from source against this host's SDK: the shared step of
// `amplifier module install` and of git sources in mount plans.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace amplifier::host {

// A module library and the id its descriptor declares.
struct ModuleFile {
  std::filesystem::path file;
  std::string id;
};

// Whether `dir` holds a project this host knows how to build: CMakeLists.txt (CMake, with
// find_package(Amplifier) finding this host's SDK), Cargo.toml (cargo, offline) or Makefile
// (make, with this host's amplifier-plugin.pc on PKG_CONFIG_PATH).
bool is_module_project(const std::filesystem::path &dir);

// Builds the project in `source_dir` in `build_dir` (created; the source tree is not written
// to) and returns every module library it produced. The build's output goes to
// `build_dir`/build.log. Throws std::runtime_error naming the step that failed, with the last
// lines of its output.
std::vector<ModuleFile> build_module_project(const std::filesystem::path &source_dir,
                                             const std::filesystem::path &build_dir);

// The module libraries among the *.so files under `dir` (recursively when asked), each loaded
// once to read its id; files that are not modules are skipped.
std::vector<ModuleFile> modules_in(const std::filesystem::path &dir, bool recursive);

// The id of module library `file` (loads it: the entry point runs). Throws ModuleLoadError.
std::string module_id_of(const std::filesystem::path &file);

}  // namespace amplifier::host
