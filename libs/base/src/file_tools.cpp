#include "amplifier/module_support/file_tools.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <system_error>
#include <vector>

namespace tool_filesystem {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBinaryProbeBytes = 8192;
constexpr std::size_t kMaxListedEntries = 1000;

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length;
  unsigned char min_second = 0x80, max_second = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) min_second = 0xA0;  // overlong
    if (lead == 0xED) max_second = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) min_second = 0x90;  // overlong
    if (lead == 0xF4) max_second = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < min_second || byte(i + 1) > max_second) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

void require_regular_file(const fs::path &file, const std::string &shown_as) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status)) throw ToolFailure("File not found: " + shown_as);
  if (fs::is_directory(status))
    throw ToolFailure(shown_as + " is a directory, not a file; use list_directory to see it");
  if (!fs::is_regular_file(status))
    throw ToolFailure(shown_as + " is not a regular file (a device, socket or pipe)");
}

bool looks_binary(std::ifstream &in) {
  std::vector<char> probe(kBinaryProbeBytes);
  in.read(probe.data(), static_cast<std::streamsize>(probe.size()));
  const auto got = static_cast<std::size_t>(in.gcount());
  in.clear();
  in.seekg(0);
  return std::find(probe.begin(), probe.begin() + static_cast<std::ptrdiff_t>(got), '\0') !=
         probe.begin() + static_cast<std::ptrdiff_t>(got);
}

void append_numbered(std::string &out, std::size_t number, std::string_view line,
                     const ReadLimits &limits) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%6zu\t", number);
  out += prefix;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF files
  if (line.size() > limits.max_line_bytes) {
    const std::size_t keep = amplifier::module_support::utf8_prefix_length(line, limits.max_line_bytes);
    out += to_valid_utf8(line.substr(0, keep));
    out += "... [line cut: " + std::to_string(line.size()) + " bytes]";
  } else {
    out += to_valid_utf8(line);
  }
  out += '\n';
}

}  // namespace

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string read_numbered_lines(const fs::path &file, const std::string &shown_as,
                                std::size_t offset, std::optional<std::size_t> limit,
                                const ReadLimits &limits) {
  require_regular_file(file, shown_as);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ToolFailure("Cannot open " + shown_as + ": permission denied or unreadable");
  if (looks_binary(in)) {
    throw ToolFailure(shown_as + " appears to be a binary file (it contains NUL bytes); "
                      "read_file only reads text");
  }
  const std::size_t first = std::max<std::size_t>(offset, 1);
  const std::size_t count = limit.value_or(limits.default_line_limit);
  std::string out, line;
  std::size_t number = 0;
  while (number < first - 1 + count && std::getline(in, line)) {
    ++number;
    if (number >= first) append_numbered(out, number, line, limits);
  }
  if (number < first) {
    if (number == 0 && first == 1) return "(" + shown_as + " is empty)";
    throw ToolFailure("offset " + std::to_string(first) + " is past the end of " + shown_as +
                      " (" + std::to_string(number) + " lines)");
  }
  if (in.peek() != std::char_traits<char>::eof()) {
    out += "... (more lines follow; read again with offset=" + std::to_string(number + 1) + ")\n";
  }
  return out;
}

std::string list_entries(const fs::path &directory, const std::string &shown_as) {
  std::error_code ec;
  const fs::file_status status = fs::status(directory, ec);
  if (!fs::exists(status)) throw ToolFailure("Directory not found: " + shown_as);
  if (!fs::is_directory(status))
    throw ToolFailure(shown_as + " is a file, not a directory; use read_file to read it");

  std::vector<std::string> names;
  fs::directory_iterator it(directory, ec);
  if (ec) throw ToolFailure("Cannot list " + shown_as + ": " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    std::string name = to_valid_utf8(it->path().filename().string());
    if (it->is_directory(entry_ec)) name += '/';  // follows symlinks: a link to a dir is a dir
    names.push_back(std::move(name));
  }
  if (ec) throw ToolFailure("Cannot list " + shown_as + ": " + ec.message());
  if (names.empty()) return "(" + shown_as + " is empty)";

  std::sort(names.begin(), names.end());
  std::string out;
  const std::size_t shown = std::min(names.size(), kMaxListedEntries);
  for (std::size_t i = 0; i < shown; ++i) out += names[i] + "\n";
  if (names.size() > shown) {
    out += "... (" + std::to_string(names.size() - shown) + " more entries not shown)\n";
  }
  return out;
}

}  // namespace tool_filesystem
