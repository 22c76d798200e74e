// What a shared library's dynamic section says about linking: the symbols it exports, the
// symbols it needs from elsewhere, and where the dynamic linker looks for them. Read from the
// file alone (no code of it runs), for the structural checks of `amplifier module validate`.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace amplifier::host::validate {

class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ElfDynamicInfo {
  // Defined symbols other objects can bind to (global, weak or unique binding; default or
  // protected visibility), in table order.
  std::vector<std::string> exports;
  // Symbols the object needs from another object. Weak references may stay unresolved.
  std::vector<std::string> strong_undefined;
  std::vector<std::string> weak_undefined;
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> runpath;  // DT_RUNPATH entries, unexpanded ($ORIGIN kept)
  std::vector<std::string> rpath;    // DT_RPATH entries (used only without a DT_RUNPATH)
};

// Reads a 64-bit little-endian ELF shared object (x86-64, AArch64, ...). Throws ElfError
// naming what is wrong when the file is not one or is malformed.
ElfDynamicInfo read_elf_dynamic(const std::filesystem::path &file);

}  // namespace amplifier::host::validate
