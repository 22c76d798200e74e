// Which module sources the operator trusts, by commit (README "Security"). A `source: git+...`
// in a plan is code that will run as the operator: git fetches it, CMake runs its
// CMakeLists.txt, the host loads what it builds. A downloaded plan is not the operator, so a
// source is fetched and built only once the operator said yes to that repository at that
// commit:
//   - `amplifier module trust SOURCE` (or `module install SOURCE`: the operator named it);
//   - `--trust-sources` on the command line: every source the command's plans name;
//   - a yes at the terminal, asked once per source and commit (shown: the source, the commit,
//     what will run); without a terminal (serve, scripts, CI) the answer is no.
// A new commit of a trusted repository is a new question. The record is a lock file in the
// operator's config folder, $XDG_CONFIG_HOME/amplifier/trusted-sources: "COMMIT SOURCE" a line,
// SOURCE without its ref (git+URL[#subdirectory=...]).
#pragma once
#include "git_source.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host::source_trust {

std::filesystem::path file();

// "git+URL[#subdirectory=PATH]": what is trusted at a commit (the ref only chose the commit).
std::string source_key(const GitSource &source);

// The source with its ref replaced by `commit`, as a plan or `module trust` would name it.
std::string pinned(const GitSource &source, const std::string &commit);

bool is_trusted(const GitSource &source, const std::string &commit);

// Records `source` at `commit` as trusted (nothing when it is already).
void trust(const GitSource &source, const std::string &commit);

// Removes every commit of `source`; how many were removed.
std::size_t untrust(const GitSource &source);

struct Entry {
  std::string commit;
  std::string source;
};
std::vector<Entry> trusted();

// This process's answer for a source that is not trusted yet: ask at the terminal (no
// terminal: refuse), or trust it (--trust-sources). Set once, before any plan is read.
void trust_every_source(bool yes);

// Returns when `source` (as the plan wrote it: `text`) at `commit` may be fetched and built,
// recording a yes; throws std::runtime_error saying how to trust it otherwise. Nothing has been
// fetched when it throws.
void require(const GitSource &source, std::string_view text, const std::string &commit);

}  // namespace amplifier::host::source_trust
