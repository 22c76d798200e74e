// The work of the filesystem tools, apart from the ABI: each returns the text the model reads
// or throws ToolFailure with a message the model can act on.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace tool_filesystem {

class ToolFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReadLimits {
  std::size_t default_line_limit = 2000;  // lines returned when the caller gives no limit
  std::size_t max_line_bytes = 2000;      // longer lines are cut, with a marker
};

// Lines [offset, offset + limit) of `file` (1-based offset), each as "%6zu\t<line>", like
// `cat -n`. `shown_as` is how the path appears in messages. A note says how to continue when
// lines remain. Refuses directories, missing files and binary files (a NUL byte in the first
// 8 KiB). Invalid UTF-8 is replaced by U+FFFD so the result is valid JSON text.
std::string read_numbered_lines(const std::filesystem::path &file, const std::string &shown_as,
                                std::size_t offset, std::optional<std::size_t> limit,
                                const ReadLimits &limits = {});

// The entries of `directory`, sorted by name, one per line, directories (also through a
// symlink) with a trailing '/'.
std::string list_entries(const std::filesystem::path &directory, const std::string &shown_as);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string to_valid_utf8(std::string_view text);

}  // namespace tool_filesystem
