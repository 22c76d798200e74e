#include "amplifier/module_support/path_policy.hpp"

#include "amplifier/module_support/paths.hpp"

namespace tool_filesystem {

namespace fs = std::filesystem;

namespace {
fs::path resolve_once(const fs::path &path) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(path, ec);
  // weakly_canonical fails only on odd errors (a component without search permission); the
  // lexical form is still absolute and free of "..", which keeps the check conservative.
  if (ec) resolved = path.lexically_normal();
  // "/a/b/" and "/a/b" must compare equal.
  if (!resolved.has_filename() && resolved.has_parent_path() && resolved != resolved.root_path())
    resolved = resolved.parent_path();
  return resolved;
}
}  // namespace

fs::path real_path(const fs::path &path) {
  // weakly_canonical resolves the longest prefix that exists and only normalises the rest
  // lexically, so "root/missing/../link_out/x" comes back as "root/link_out/x" with the
  // symlink link_out still in it: inside the root on paper, outside once opened. Resolve again
  // until nothing changes, so the result is its own real location (bounded like the kernel's
  // own symlink limit; a longer chain could not be opened anyway).
  fs::path resolved = resolve_once(path);
  for (int round = 0; round < 40; ++round) {
    fs::path again = resolve_once(resolved);
    if (again == resolved) break;
    resolved = std::move(again);
  }
  return resolved;
}

bool is_within(const fs::path &path, const fs::path &root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator of the root
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

namespace {
fs::path absolute_from(const fs::path &base, std::string_view text) {
  fs::path path = amplifier::module_support::expand_home(text);
  return path.is_absolute() ? path : base / path;
}
}  // namespace

PathPolicy::PathPolicy(fs::path working_dir, const std::vector<std::string> &roots,
                       std::string_view purpose)
    : working_dir_(real_path(working_dir)), purpose_(purpose) {
  for (const auto &root : roots) roots_.push_back(real_path(absolute_from(working_dir_, root)));
}

fs::path PathPolicy::resolve(std::string_view requested) const {
  if (requested.find('\0') != std::string_view::npos)
    throw PathRefused("Invalid path: it contains a NUL character");
  const fs::path resolved = real_path(absolute_from(working_dir_, requested));
  for (const auto &root : roots_) {
    if (is_within(resolved, root)) return resolved;
  }
  std::string allowed;
  for (const auto &root : roots_) allowed += (allowed.empty() ? "" : ", ") + root.string();
  if (allowed.empty()) allowed = "none configured";
  std::string message = "Access denied: '" + std::string(requested) + "'";
  if (resolved.string() != requested) message += " resolves to '" + resolved.string() + "', which";
  message += " is outside the allowed " + purpose_ + " paths (" + allowed + ")";
  throw PathRefused(message);
}

std::string PathPolicy::display(const fs::path &real) const {
  if (!is_within(real, working_dir_)) return real.string();
  const fs::path relative = real.lexically_relative(working_dir_);
  return relative.empty() ? std::string(".") : relative.string();
}

}  // namespace tool_filesystem
