// The writing tools, apart from the ABI: write_file and edit_file. Each returns what the model
// reads and throws ToolFailure with a message it can act on.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace tool_filesystem {

// Replaces `file`'s content atomically: the bytes go to a temporary file beside it (created
// with the usual permissions, or the replaced file's), are flushed to disk, and the temporary
// is renamed over `file`, so a reader sees the old content or the new, never a mix, and a
// crash leaves no half-written file. Throws ToolFailure naming `shown_as` on failure.
void write_atomically(const std::filesystem::path &file, const std::string &shown_as,
                      std::string_view content);

struct WriteOutcome {
  bool created = false;  // false: an existing file was replaced
  std::string summary;   // "Created notes.txt (3 lines, 20 bytes)"
};

// Writes `content` to `file`, creating missing parent directories. Refuses a directory.
WriteOutcome write_text_file(const std::filesystem::path &file, const std::string &shown_as,
                             std::string_view content);

struct EditRequest {
  std::string old_string;
  std::string new_string;
  bool replace_all = false;
};

struct EditOutcome {
  std::size_t replacements = 0;
  std::vector<std::size_t> lines;  // 1-based lines where the replacements start, in the new text
  std::string summary;             // "Replaced 1 occurrence in notes.txt (line 3)"
};

// The content of `text` after the exact replacement `request` asks for, with the outcome.
// Throws ToolFailure when old_string is empty, equal to new_string, absent, or ambiguous
// (several occurrences without replace_all). `shown_as` names the file in messages.
std::string apply_edit(std::string_view text, const EditRequest &request, const std::string &shown_as,
                       EditOutcome &outcome);

// Reads `file` (a text file), applies the edit and writes the result atomically.
EditOutcome edit_text_file(const std::filesystem::path &file, const std::string &shown_as,
                           const EditRequest &request);

}  // namespace tool_filesystem
