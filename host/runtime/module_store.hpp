// The user module folder ($XDG_DATA_HOME/amplifier/modules): what `amplifier module install`
// puts there and `module remove` takes away. Each module is `<id>.so` with a record
// `<id>.source.json` ({"source", "commit"?, "installed_at"}) saying where it came from.
#pragma once
#include "module_build.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace amplifier::host {

struct SourceRecord {
  std::string source;  // as the user gave it
  std::string commit;  // for git sources
  std::string installed_at;
};

// Copies `module` into the user folder as <id>.so (atomically: a running session keeps the
// file it loaded) with its source record. Returns the installed file.
std::filesystem::path install_into_user_folder(const ModuleFile &module,
                                               const SourceRecord &record);

// Removes <id>.so and its record from the user folder. Throws std::runtime_error when the
// module is not installed there.
void remove_from_user_folder(const std::string &id);

// The record kept beside `module_file` (<id>.source.json), if there is one.
std::optional<SourceRecord> source_record_of(const std::filesystem::path &module_file);

// The module libraries a source stands for.
struct SourceModules {
  std::vector<ModuleFile> modules;
  std::string commit;                 // for git sources
  std::shared_ptr<void> build_files;  // keeps a temporary build folder until released
};

// Every module library `source` stands for, built when it is a project: a .so, a folder of
// them, a project folder (CMake, cargo, make), file:// forms of those, or a git source.
// Throws std::runtime_error (ModuleLoadError among them) naming the problem.
SourceModules modules_from_source(const std::string &source);

}  // namespace amplifier::host
