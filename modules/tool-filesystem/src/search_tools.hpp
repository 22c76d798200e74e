// The search tools, apart from the ABI: glob (paths by pattern) and grep (lines by regular
// expression). Each returns the text the model reads or throws ToolFailure.
//
// Both walk the tree below a base directory in sorted order, never descend through a
// symlinked directory (no loops, no escape from the allowed roots through a link), and leave
// hidden entries (.git, .venv) out unless a pattern names them. Paths are shown as
// `display(real_path)` makes them (relative to the working directory when inside it).
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace tool_filesystem {

using DisplayPath = std::function<std::string(const std::filesystem::path &)>;

struct SearchLimits {
  std::size_t max_results = 1000;          // glob: paths listed
  std::size_t max_matches = 250;           // grep: matching lines listed
  std::size_t max_line_bytes = 300;        // grep: a longer matching line is cut
  std::size_t max_visited = 200'000;       // entries examined before a search gives up
  std::uintmax_t max_file_bytes = 16u << 20;  // grep: larger files are skipped
};

// The paths below `base` matching `pattern` (see path_glob.hpp), sorted, one per line,
// directories with a trailing '/'; capped with a note saying how many were left out.
std::string glob_paths(const std::filesystem::path &base, const std::string &pattern,
                       const DisplayPath &display, const SearchLimits &limits = {});

struct GrepRequest {
  std::string pattern;                 // ECMAScript regular expression
  std::optional<std::string> file_glob;  // "*.cpp" (file name) or "src/**/*.hpp" (path)
  bool case_insensitive = false;
};

// Every line matching `request.pattern` in the text files at or below `base`, as
// "file:line:text", files in sorted order; binary files (a NUL byte in the first 8 KiB) and
// files over max_file_bytes are skipped and counted in a closing note.
std::string grep_files(const std::filesystem::path &base, const GrepRequest &request,
                       const DisplayPath &display, const SearchLimits &limits = {});

}  // namespace tool_filesystem
