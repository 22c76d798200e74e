#include "front_matter.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace amplifier::host {

FrontMatterText split_front_matter(std::string_view text, const std::string &origin) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a byte order mark
  std::string front;
  std::string_view body = text;
  auto line_end = [&](std::size_t from) {
    auto nl = text.find('\n', from);
    return nl == std::string_view::npos ? text.size() : nl;
  };
  auto trimmed = [](std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    return line;
  };
  if (trimmed(text.substr(0, line_end(0))) == "---") {
    std::size_t pos = std::min(line_end(0) + 1, text.size());
    const std::size_t start = pos;
    while (true) {
      if (pos >= text.size())
        throw FrontMatterError(fmt::format("{}: the front matter has no closing '---' line", origin));
      const std::size_t end = line_end(pos);
      const auto line = trimmed(text.substr(pos, end - pos));
      if (line == "---" || line == "...") {
        front = std::string(text.substr(start, pos - start));
        body = text.substr(std::min(end + 1, text.size()));
        break;
      }
      pos = end + 1;
    }
  }
  FrontMatterText out;
  try {
    out.front = front.empty() ? YAML::Node(YAML::NodeType::Map) : YAML::Load(front);
  } catch (const YAML::Exception &e) {
    throw FrontMatterError(fmt::format("{}: the front matter is not valid YAML: line {}: {}", origin,
                                       e.mark.line + 2, e.msg));
  }
  if (out.front.IsNull()) out.front = YAML::Node(YAML::NodeType::Map);
  if (!out.front.IsMap()) throw FrontMatterError(fmt::format("{}: the front matter must be a YAML map", origin));
  const auto first = body.find_first_not_of(" \t\r\n");
  out.body = first == std::string_view::npos ? "" : std::string(body.substr(first));
  while (!out.body.empty() && std::isspace(static_cast<unsigned char>(out.body.back()))) out.body.pop_back();
  return out;
}

std::string read_small_file(const std::filesystem::path &file, std::size_t limit, std::string_view what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw FrontMatterError(fmt::format("{}: cannot read: {}", file.string(), ec.message()));
  if (size > limit)
    throw FrontMatterError(fmt::format("{}: {} bytes is too large for {} (limit {})", file.string(),
                                       size, what, limit));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw FrontMatterError(fmt::format("{}: cannot open", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace amplifier::host
