// A list the operator keeps in their config folder (trusted-folders, trusted-sources): one
// entry a line, the file 0600 in a 0700 folder, replaced whole on each write so a reader never
// sees half of it. Only the operator's own commands write one (`amplifier trust`, `amplifier
// module trust`, an answer at their terminal); nothing a plan, a model or a client sends does.
// Thread-safe: each call reads or writes the file itself.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace amplifier::operator_list {

// The non-empty lines of `file`, in order; none when it does not exist or cannot be read.
std::vector<std::string> read(const std::filesystem::path &file);

// Replaces `file` with `lines`, creating its folder (0700) when missing. Throws
// std::runtime_error naming the file when it cannot. A read-modify-write of one list from
// several threads needs the caller's lock; between processes the last writer wins.
void write(const std::filesystem::path &file, const std::vector<std::string> &lines);

}  // namespace amplifier::operator_list
