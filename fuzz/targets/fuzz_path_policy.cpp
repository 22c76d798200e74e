// The path policy of the filesystem tools (libs/base path_policy, used by tool-filesystem
// and tool-bash). A fixed tree is made once in a temporary folder: a working directory with an
// allowed root holding a sub-folder and symlinks pointing inside, outside (relative and
// absolute) and at themselves, an allowed root outside the working directory, and a secret
// folder beside them. The input is the requested path.
// Invariants: a path the policy allows is absolute, has no "." or ".." part, lies inside an
// allowed root, and is its own real location (resolving it again, symlinks followed, gives the
// same path, so opening it cannot land elsewhere); display() of it, read back through the
// policy, gives it again.
#include "fuzz_support.hpp"

#include "amplifier/module_support/path_policy.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace fs = std::filesystem;
using tool_filesystem::PathPolicy;
using tool_filesystem::PathRefused;

namespace {

struct Tree {
  fs::path base;
  std::optional<PathPolicy> policy;
};

Tree make_tree() {
  Tree tree;
  std::string pattern = (fs::temp_directory_path() / "amp-fuzz-paths.XXXXXX").string();
  if (!mkdtemp(pattern.data())) std::abort();
  tree.base = fs::canonical(pattern);
  const fs::path work = tree.base / "work";
  fs::create_directories(work / "allowed" / "sub" / "deep");
  fs::create_directories(tree.base / "common" / "docs");
  fs::create_directories(tree.base / "secret");
  fs::create_directories(tree.base / "home");
  std::ofstream(work / "allowed" / "file.txt") << "x";
  std::ofstream(tree.base / "secret" / "key") << "x";
  fs::create_directory_symlink("sub", work / "allowed" / "in");
  fs::create_directory_symlink("../../secret", work / "allowed" / "out");
  fs::create_directory_symlink(tree.base / "secret", work / "allowed" / "abs");
  fs::create_directory_symlink("../common", work / "allowed" / "sub" / "tocommon");
  fs::create_symlink("loop", work / "allowed" / "loop");
  fs::create_symlink("missing/target", work / "allowed" / "dangling");
  fs::create_symlink("../../secret/key", work / "allowed" / "keylink");
  setenv("HOME", (tree.base / "home").c_str(), 1);
  tree.policy.emplace(work, std::vector<std::string>{"allowed", (tree.base / "common").string()},
                      "read");
  return tree;
}

const Tree &tree() {
  static const Tree t = make_tree();
  return t;
}

void cleanup() {
  std::error_code ec;
  fs::remove_all(tree().base, ec);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  tree();
  std::atexit(cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size > 4096) return 0;  // PATH_MAX
  const PathPolicy &policy = *tree().policy;
  const std::string_view requested = amp_fuzz::as_text(data, size);
  fs::path resolved;
  try {
    resolved = policy.resolve(requested);
  } catch (const PathRefused &e) {
    FUZZ_CHECK(*e.what() != '\0');
    return 0;
  }
  FUZZ_CHECK(resolved.is_absolute());
  for (const fs::path &part : resolved) FUZZ_CHECK(part != "." && part != "..");
  bool inside = false;
  for (const fs::path &root : policy.roots()) inside = inside || tool_filesystem::is_within(resolved, root);
  FUZZ_CHECK(inside);
  // Its own real location: no symlink or ".." left in it to lead elsewhere.
  FUZZ_CHECK(tool_filesystem::real_path(resolved) == resolved);
  FUZZ_CHECK(policy.resolve(resolved.string()) == resolved);
  FUZZ_CHECK(policy.resolve(policy.display(resolved)) == resolved);
  return 0;
}
