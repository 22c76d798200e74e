// Markdown files that start with YAML front matter between '---' lines, the form agents,
// modes and skills are written in (after Claude Code's): the front matter says what the file
// is, the body is text for the model.
#pragma once
#include "amplifier/yaml_cpp.hpp"

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace amplifier::host {

class FrontMatterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FrontMatterText {
  YAML::Node front;  // a map (an empty one when the file has no front matter)
  std::string body;  // trimmed
};

// Splits `text` (a byte order mark and \r\n line ends allowed; the closing line may be '---'
// or '...'). Throws FrontMatterError naming `origin`: no closing line, YAML that does not
// parse (with its line in the file), front matter that is not a map.
FrontMatterText split_front_matter(std::string_view text, const std::string &origin);

// The whole of `file`, refused (FrontMatterError naming the file and `what`) when it is larger
// than `limit` bytes or cannot be read.
std::string read_small_file(const std::filesystem::path &file, std::size_t limit, std::string_view what);

}  // namespace amplifier::host
