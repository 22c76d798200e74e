#include "write_tools.hpp"

#include "amplifier/module_support/file_tools.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <system_error>

namespace tool_filesystem {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxEditableBytes = 16u << 20;
constexpr std::size_t kMaxListedLines = 10;

std::string errno_text(int error) { return std::strerror(error); }

// A file descriptor closed on scope exit.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  int get() const { return fd_; }
  // Closes now, reporting the error close(2) may carry for a written file.
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

// Opens a new, uniquely named file beside `target`. Mode 0666 lets the umask decide the
// permissions, as for any new file (mkstemp would force 0600).
std::pair<fs::path, int> create_temporary_beside(const fs::path &target) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".%016llx.tmp", static_cast<unsigned long long>(rng()));
    fs::path temporary = target.parent_path() / ("." + target.filename().string() + suffix);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return {temporary, fd};
    if (errno != EEXIST) return {temporary, -1};
  }
  errno = EEXIST;
  return {fs::path(), -1};
}

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string count_summary(std::string_view content) {
  std::size_t lines = static_cast<std::size_t>(std::count(content.begin(), content.end(), '\n'));
  if (!content.empty() && content.back() != '\n') ++lines;
  return std::to_string(lines) + (lines == 1 ? " line, " : " lines, ") +
         std::to_string(content.size()) + (content.size() == 1 ? " byte" : " bytes");
}

// Every start position of `needle` in `text`, non-overlapping, left to right.
std::vector<std::size_t> occurrences(std::string_view text, std::string_view needle) {
  std::vector<std::size_t> found;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size()))
    found.push_back(at);
  return found;
}

std::size_t line_of(std::string_view text, std::size_t position) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + position, '\n'));
}

// "line 3" / "lines 3, 7, 9" / "lines 3, 7, ... (12 in all)".
std::string describe_lines(const std::vector<std::size_t> &lines) {
  std::string out = lines.size() == 1 ? "line " : "lines ";
  for (std::size_t i = 0; i < lines.size() && i < kMaxListedLines; ++i)
    out += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > kMaxListedLines) out += ", ... (" + std::to_string(lines.size()) + " in all)";
  return out;
}

std::string not_found_message(std::string_view text, const EditRequest &request,
                              const std::string &shown_as) {
  std::string message = "old_string was not found in " + shown_as +
                        ". It must match the file exactly, including whitespace and "
                        "indentation; read the file again and copy the text.";
  const bool file_uses_crlf = text.find("\r\n") != std::string_view::npos;
  if (file_uses_crlf && request.old_string.find('\n') != std::string::npos &&
      request.old_string.find("\r\n") == std::string::npos)
    message += " Note: the file has Windows line endings (\\r\\n).";
  return message;
}

std::string read_editable(const fs::path &file, const std::string &shown_as) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status))
    throw ToolFailure("File not found: " + shown_as + " (use write_file to create a file)");
  if (!fs::is_regular_file(status)) throw ToolFailure(shown_as + " is not a regular file");
  if (fs::file_size(file, ec) > kMaxEditableBytes)
    throw ToolFailure(shown_as + " is larger than " + std::to_string(kMaxEditableBytes) +
                      " bytes; edit_file does not edit files that large");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ToolFailure("Cannot open " + shown_as + ": permission denied or unreadable");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (text.find('\0') != std::string::npos)
    throw ToolFailure(shown_as + " appears to be a binary file (it contains NUL bytes); "
                      "edit_file only edits text");
  return text;
}

}  // namespace

void write_atomically(const fs::path &file, const std::string &shown_as, std::string_view content) {
  auto [temporary, fd] = create_temporary_beside(file);
  if (fd < 0) throw ToolFailure("Cannot write " + shown_as + ": " + errno_text(errno));
  Descriptor out(fd);
  auto fail = [&](const std::string &what) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw ToolFailure("Cannot write " + shown_as + ": " + what + ": " + errno_text(error));
  };
  // A replaced file keeps its permissions.
  struct stat existing {};
  if (::stat(file.c_str(), &existing) == 0 && ::fchmod(out.get(), existing.st_mode & 07777) != 0)
    fail("setting permissions");
  if (!write_all(out.get(), content)) fail("writing");
  if (::fsync(out.get()) != 0) fail("flushing to disk");
  if (out.close() != 0) fail("closing");
  if (::rename(temporary.c_str(), file.c_str()) != 0) fail("renaming the temporary file");
}

WriteOutcome write_text_file(const fs::path &file, const std::string &shown_as,
                             std::string_view content) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (fs::is_directory(status)) throw ToolFailure(shown_as + " is a directory, not a file");
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw ToolFailure(shown_as + " is not a regular file (a device, socket or pipe)");
  WriteOutcome outcome;
  outcome.created = !fs::exists(status);
  fs::create_directories(file.parent_path(), ec);
  if (ec) throw ToolFailure("Cannot create the directories of " + shown_as + ": " + ec.message());
  write_atomically(file, shown_as, content);
  outcome.summary = std::string(outcome.created ? "Created " : "Overwrote ") + shown_as + " (" +
                    count_summary(content) + ")";
  return outcome;
}

std::string apply_edit(std::string_view text, const EditRequest &request, const std::string &shown_as,
                       EditOutcome &outcome) {
  if (request.old_string.empty())
    throw ToolFailure("old_string must not be empty; use write_file to create or replace a whole file");
  if (request.old_string == request.new_string)
    throw ToolFailure("old_string and new_string are identical; there is nothing to change");
  const std::vector<std::size_t> found = occurrences(text, request.old_string);
  if (found.empty()) throw ToolFailure(not_found_message(text, request, shown_as));
  if (found.size() > 1 && !request.replace_all) {
    std::vector<std::size_t> lines;
    for (std::size_t at : found) lines.push_back(line_of(text, at));
    throw ToolFailure("old_string occurs " + std::to_string(found.size()) + " times in " + shown_as +
                      " (" + describe_lines(lines) + "); include more surrounding text to make it "
                      "unique, or set replace_all to true to replace every occurrence");
  }
  std::string result;
  result.reserve(text.size() + found.size() * request.new_string.size());
  std::size_t copied = 0, newlines = 0;
  for (std::size_t at : found) {
    const std::string_view before = text.substr(copied, at - copied);
    newlines += static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    outcome.lines.push_back(newlines + 1);
    result += before;
    result += request.new_string;
    newlines += static_cast<std::size_t>(
        std::count(request.new_string.begin(), request.new_string.end(), '\n'));
    copied = at + request.old_string.size();
  }
  result += text.substr(copied);
  outcome.replacements = found.size();
  outcome.summary = "Replaced " + std::to_string(found.size()) +
                    (found.size() == 1 ? " occurrence in " : " occurrences in ") + shown_as + " (" +
                    describe_lines(outcome.lines) + ")";
  return result;
}

EditOutcome edit_text_file(const fs::path &file, const std::string &shown_as,
                           const EditRequest &request) {
  const std::string text = read_editable(file, shown_as);
  EditOutcome outcome;
  const std::string edited = apply_edit(text, request, shown_as, outcome);
  write_atomically(file, shown_as, edited);
  return outcome;
}

}  // namespace tool_filesystem
