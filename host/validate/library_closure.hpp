// The libraries a module brings with it: its DT_NEEDED libraries and theirs, found where the
// dynamic linker would find them, and the symbols they define. A module must get every
// symbol it needs from them: a symbol that only the host process happens to define makes the
// module depend on how the host was linked.
#pragma once
#include "elf_dynamic.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace amplifier::host::validate {

struct LibraryClosure {
  std::vector<std::filesystem::path> found;    // every library of the closure, in BFS order
  std::vector<std::string> missing;            // DT_NEEDED names nobody could find
  std::set<std::string, std::less<>> defined;  // the symbols the closure exports
};

// Walks the DT_NEEDED tree of `module` (whose own dynamic info is `info`). Lookup order per
// library, as ld.so does it: a name with '/' as it is; the requester's DT_RPATH (without a
// DT_RUNPATH), LD_LIBRARY_PATH, the requester's DT_RUNPATH ($ORIGIN expanded); then the
// system's own resolution (its cache and default folders), asked through dlopen, which runs
// the constructors of system libraries: call it in a process made for the check.
LibraryClosure library_closure(const std::filesystem::path &module, const ElfDynamicInfo &info);

}  // namespace amplifier::host::validate
