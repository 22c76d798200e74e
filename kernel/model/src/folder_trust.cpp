#include "amplifier/folder_trust.hpp"

#include "amplifier/user_dirs.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace amplifier::folder_trust {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> read_list() {
  std::vector<fs::path> folders;
  std::ifstream in(file());
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.front() == '/') folders.emplace_back(line);
  return folders;
}

void write_list(const std::vector<fs::path> &folders) {
  const fs::path path = file();
  std::error_code ec;
  if (!fs::exists(path.parent_path(), ec)) {
    fs::create_directories(path.parent_path(), ec);
    fs::permissions(path.parent_path(), fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  // Written beside and renamed over: a reader never sees half a list.
  const fs::path temporary = path.string() + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + temporary.string());
  std::string text;
  for (const auto &folder : folders) text += folder.string() + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot write " + path.string());
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
