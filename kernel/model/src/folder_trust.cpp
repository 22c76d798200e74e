#include "amplifier/folder_trust.hpp"

#include "amplifier/operator_list.hpp"
#include "amplifier/user_dirs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace amplifier::folder_trust {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> read_list() {
  std::vector<fs::path> folders;
  for (auto &line : operator_list::read(file()))
    if (line.front() == '/') folders.emplace_back(line);
  return folders;
}

void write_list(const std::vector<fs::path> &folders) {
  std::vector<std::string> lines;
  for (const auto &folder : folders) lines.push_back(folder.string());
  operator_list::write(file(), lines);
}

fs::path canonical_folder(const fs::path &folder) {
  std::error_code ec;
  fs::path canonical = fs::canonical(folder, ec);
  if (ec || !fs::is_directory(canonical, ec)) return {};
  return canonical;
}

}  // namespace

fs::path file() { return user_dirs::config() / "trusted-folders"; }

bool is_trusted(const fs::path &folder) {
  try {
    const fs::path canonical = canonical_folder(folder);
    if (canonical.empty()) return false;
    const auto folders = read_list();
    return std::find(folders.begin(), folders.end(), canonical) != folders.end();
  } catch (const std::exception &) {  // no home, no list: nothing is trusted
    return false;
  }
}

std::vector<fs::path> trusted() { return read_list(); }

fs::path trust(const fs::path &folder) {
  const fs::path canonical = canonical_folder(folder);
  if (canonical.empty()) throw std::runtime_error(folder.string() + " is not a folder");
  auto folders = read_list();
  if (std::find(folders.begin(), folders.end(), canonical) == folders.end()) {
    folders.push_back(canonical);
    write_list(folders);
  }
  return canonical;
}

bool untrust(const fs::path &folder) {
  const fs::path canonical = canonical_folder(folder);
  auto folders = read_list();
  const auto before = folders.size();
  std::erase_if(folders, [&](const fs::path &f) { return f == canonical || f == folder; });
  if (folders.size() == before) return false;
  write_list(folders);
  return true;
}

}  // namespace amplifier::folder_trust
