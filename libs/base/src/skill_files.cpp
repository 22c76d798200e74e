#include "amplifier/module_support/skill_files.hpp"

#include <algorithm>

namespace amplifier::module_support {
namespace fs = std::filesystem;

std::string skill_instructions(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  auto line_of = [&](std::size_t from) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    std::string_view line = text.substr(from, end - from);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    return std::pair{line, end};
  };
  std::string_view body = text;
  if (auto [first, end] = line_of(0); first == "---") {
    for (std::size_t pos = std::min(end + 1, text.size()); pos < text.size();) {
      auto [line, line_end] = line_of(pos);
      if (line == "---" || line == "...") {
        body = text.substr(std::min(line_end + 1, text.size()));
        break;
      }
      pos = line_end + 1;
    }
  }
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = body.find_last_not_of(" \t\r\n");
  return std::string(body.substr(first, last - first + 1));
}

std::vector<std::string> skill_resources(const fs::path &folder, std::size_t limit) {
  std::vector<std::string> out;
  std::error_code ec;
  // Linked folders are not entered; a folder of many files is looked at only so far.
  constexpr std::size_t kMaxEntriesVisited = 5000;
  std::size_t visited = 0;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && ++visited <= kMaxEntriesVisited; it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(folder);
    const std::string name = it->path().filename().string();
    if (name.starts_with(".")) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if ((it->is_directory(ec) && !it->is_symlink(ec)) || relative == "SKILL.md") continue;
    out.push_back(relative.generic_string());
  }
  std::sort(out.begin(), out.end());
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::string loaded_skill_text(std::string_view name, const fs::path &folder,
                              std::string_view instructions, const std::vector<std::string> &resources) {
  std::string text = "<skill name=\"" + std::string(name) + "\" folder=\"" + folder.string() + "\">\n";
  text += instructions;
  text += "\n</skill>";
  if (!resources.empty()) {
    text += "\nThe skill's files (paths relative to its folder; read them with the file tools when the instructions call for them):";
    for (const auto &resource : resources) text += "\n- " + resource;
  }
  return text;
}

}  // namespace amplifier::module_support
