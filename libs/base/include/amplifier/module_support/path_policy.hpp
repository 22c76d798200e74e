// Which paths the filesystem tools may touch. A path is resolved against the working
// directory and then to its real location (symlinks followed, "." and ".." removed) before it
// is compared with the allowed roots, which were resolved the same way, so neither "..", nor
// an absolute path, nor a symlink pointing outside gets past the check.
//
// THREADS: immutable after construction; safe to share between concurrent tool calls.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tool_filesystem {

// A path the model may not use; the message is written for the model to read.
class PathRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `lexically` absolute, "." and ".." removed, symlinks of the existing part resolved.
std::filesystem::path real_path(const std::filesystem::path &path);

// True when `path` is `root` or lies below it (component-wise, so /a/bc is not below /a/b).
bool is_within(const std::filesystem::path &path, const std::filesystem::path &root);

class PathPolicy {
 public:
  // `working_dir` must be absolute; relative `roots` are taken relative to it; "~" expanded.
  PathPolicy(std::filesystem::path working_dir, const std::vector<std::string> &roots,
             std::string_view purpose /* "read", "write": used in messages */);

  // The real path of `requested` (relative to the working directory), or PathRefused naming
  // the request, where it resolves to and the allowed roots.
  std::filesystem::path resolve(std::string_view requested) const;

  // How a resolved path appears in tool output: relative to the working directory when it is
  // inside it ("src/main.cpp", "." for the directory itself), else absolute, so it can be
  // passed back to any tool as it is.
  std::string display(const std::filesystem::path &real) const;

  const std::filesystem::path &working_dir() const noexcept { return working_dir_; }
  const std::vector<std::filesystem::path> &roots() const noexcept { return roots_; }

 private:
  std::filesystem::path working_dir_;
  std::vector<std::filesystem::path> roots_;  // real paths
  std::string purpose_;
};

}  // namespace tool_filesystem
