// Git sources of modules: `git+https://host/repo[@ref][#subdirectory=path]` and
// `git+file:///path/repo[@ref][#subdirectory=path]` (also git+http, git+ssh). The ref (a
// branch, a tag or a full commit id; default the remote's HEAD) is resolved to a commit, the
// commit is fetched shallow and built with this host's SDK, and the built modules are cached
// by commit under $XDG_CACHE_HOME/amplifier/modules/<commit>[-<subdirectory>]/, so a plan
// naming the same commit never fetches or builds again.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace amplifier::host {

struct GitSource {
  std::string url;           // without "git+", ref and fragment
  std::string ref;           // empty: HEAD
  std::string subdirectory;  // relative, checked: no "..", not absolute
};

// Throws std::invalid_argument naming what is wrong.
GitSource parse_git_source(std::string_view source);

struct FetchedModules {
  std::filesystem::path dir;  // holds <id>.so for every module the project built
  std::string commit;
  bool from_cache = false;
};

// The commit `source`'s ref names on the remote (git ls-remote; nothing is fetched).
std::string resolve_git_commit(const GitSource &source);

// Who named the source: the operator on the command line (`module install`: trusted by that,
// and recorded), or a plan (fetched only when source_trust::require allows).
enum class NamedBy { operator_command, plan };

// Resolves, fetches and builds `source` (or finds it in the cache). Throws
// std::runtime_error naming the step that failed, or why the source is not trusted (then
// nothing was fetched).
FetchedModules fetch_git_modules(std::string_view source, NamedBy named_by);

// Makes the kernel's loader resolve git sources in plans through fetch_git_modules.
void install_git_source_resolver();

}  // namespace amplifier::host
