#include "elf_dynamic.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>

namespace amplifier::host::validate {
namespace {

// The file's bytes with bounds-checked typed reads: a truncated or hostile file is an
// ElfError, never a read past the end.
class ElfImage {
 public:
  explicit ElfImage(const std::filesystem::path &file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ElfError("cannot be opened");
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  template <class T>
  T read(std::uint64_t offset) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T))
      throw ElfError("is truncated or malformed (a table points past the end of the file)");
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  // The NUL-terminated string at `offset` of the string table at `table`/`size`.
  std::string string_at(const Elf64_Shdr &table, std::uint64_t offset) const {
    if (offset >= table.sh_size) throw ElfError("has a symbol name outside its string table");
    const std::uint64_t start = table.sh_offset + offset;
    const std::uint64_t end = table.sh_offset + table.sh_size;
    if (end > bytes_.size()) throw ElfError("has a string table past the end of the file");
    const char *begin = bytes_.data() + start;
    return std::string(begin, strnlen(begin, end - start));
  }

  std::size_t size() const { return bytes_.size(); }

 private:
  std::string bytes_;
};

Elf64_Ehdr read_header(const ElfImage &image) {
  if (image.size() < EI_NIDENT) throw ElfError("is not an ELF file (too short)");
  auto header = image.read<Elf64_Ehdr>(0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) throw ElfError("is not an ELF file");
  if (header.e_ident[EI_CLASS] != ELFCLASS64) throw ElfError("is not a 64-bit ELF file");
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) throw ElfError("is not a little-endian ELF file");
  if (header.e_type != ET_DYN) throw ElfError("is not a shared object (ELF type is not DYN)");
  if (header.e_shentsize != sizeof(Elf64_Shdr)) throw ElfError("has no usable section headers");
  return header;
}

std::vector<Elf64_Shdr> read_sections(const ElfImage &image, const Elf64_Ehdr &header) {
  std::vector<Elf64_Shdr> sections;
  for (std::uint16_t i = 0; i < header.e_shnum; ++i)
    sections.push_back(image.read<Elf64_Shdr>(header.e_shoff + i * sizeof(Elf64_Shdr)));
  return sections;
}

std::optional<Elf64_Shdr> section_of_type(const std::vector<Elf64_Shdr> &sections,
                                          std::uint32_t type) {
  for (const auto &s : sections)
    if (s.sh_type == type) return s;
  return std::nullopt;
}

const Elf64_Shdr &linked_strings(const std::vector<Elf64_Shdr> &sections, const Elf64_Shdr &s) {
  if (s.sh_link >= sections.size() || sections[s.sh_link].sh_type != SHT_STRTAB)
    throw ElfError("has a dynamic table without its string table");
  return sections[s.sh_link];
}

bool is_bindable_definition(const Elf64_Sym &symbol) {
  const unsigned binding = ELF64_ST_BIND(symbol.st_info);
  const unsigned visibility = ELF64_ST_VISIBILITY(symbol.st_other);
  const bool global = binding == STB_GLOBAL || binding == STB_WEAK || binding == STB_GNU_UNIQUE;
  const bool visible = visibility == STV_DEFAULT || visibility == STV_PROTECTED;
  return symbol.st_shndx != SHN_UNDEF && global && visible;
}

void read_symbols(const ElfImage &image, const std::vector<Elf64_Shdr> &sections,
                  ElfDynamicInfo &info) {
  auto dynsym = section_of_type(sections, SHT_DYNSYM);
  if (!dynsym) return;  // nothing exported, nothing needed
  const Elf64_Shdr &names = linked_strings(sections, *dynsym);
  const std::uint64_t count = dynsym->sh_size / sizeof(Elf64_Sym);
  for (std::uint64_t i = 1; i < count; ++i) {  // entry 0 is the reserved null symbol
    auto symbol = image.read<Elf64_Sym>(dynsym->sh_offset + i * sizeof(Elf64_Sym));
    std::string name = image.string_at(names, symbol.st_name);
    if (name.empty()) continue;
    if (symbol.st_shndx == SHN_UNDEF) {
      const bool weak = ELF64_ST_BIND(symbol.st_info) == STB_WEAK;
      (weak ? info.weak_undefined : info.strong_undefined).push_back(std::move(name));
    } else if (is_bindable_definition(symbol)) {
      info.exports.push_back(std::move(name));
    }
  }
}

std::vector<std::string> split_path_list(const std::string &list) {
  std::vector<std::string> parts;
  std::string_view rest(list);
  while (!rest.empty()) {
    auto colon = rest.find(':');
    if (auto part = rest.substr(0, colon); !part.empty()) parts.emplace_back(part);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return parts;
}

void read_dynamic_entries(const ElfImage &image, const std::vector<Elf64_Shdr> &sections,
                          ElfDynamicInfo &info) {
  auto dynamic = section_of_type(sections, SHT_DYNAMIC);
  if (!dynamic) return;
  const Elf64_Shdr &strings = linked_strings(sections, *dynamic);
  const std::uint64_t count = dynamic->sh_size / sizeof(Elf64_Dyn);
  for (std::uint64_t i = 0; i < count; ++i) {
    auto entry = image.read<Elf64_Dyn>(dynamic->sh_offset + i * sizeof(Elf64_Dyn));
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_NEEDED) info.needed.push_back(image.string_at(strings, entry.d_un.d_val));
    if (entry.d_tag == DT_RUNPATH)
      info.runpath = split_path_list(image.string_at(strings, entry.d_un.d_val));
    if (entry.d_tag == DT_RPATH)
      info.rpath = split_path_list(image.string_at(strings, entry.d_un.d_val));
  }
}

}  // namespace

ElfDynamicInfo read_elf_dynamic(const std::filesystem::path &file) {
  ElfImage image(file);
  const Elf64_Ehdr header = read_header(image);
  const std::vector<Elf64_Shdr> sections = read_sections(image, header);
  ElfDynamicInfo info;
  read_symbols(image, sections, info);
  read_dynamic_entries(image, sections, info);
  return info;
}

}  // namespace amplifier::host::validate
