#include "amplifier/operator_list.hpp"

#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

namespace amplifier::operator_list {
namespace fs = std::filesystem;

std::vector<std::string> read(const fs::path &file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

void write(const fs::path &file, const std::vector<std::string> &lines) {
  std::error_code ec;
  if (!fs::exists(file.parent_path(), ec)) {
    fs::create_directories(file.parent_path(), ec);
    fs::permissions(file.parent_path(), fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  // Written beside (a name of its own, 0600) and renamed over: a reader never sees half a
  // list, and two writers never share the temporary file.
  std::string temporary = file.string() + ".XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot write " + file.string() + ".*");
  std::string text;
  for (const auto &line : lines) text += line + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written || ::rename(temporary.c_str(), file.c_str()) != 0) {
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot write " + file.string());
  }
}

}  // namespace amplifier::operator_list
