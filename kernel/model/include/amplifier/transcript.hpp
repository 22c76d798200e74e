// The on-disk transcript of a session: one JSON line per message, appended as the session runs.
//
// Line format (version 1):
//   {"v":1,"ts":"2025-01-02T03:04:05.678Z","message":{...unified Message...},
//    "origin":{"provider":"anthropic","module":"provider-anthropic","model":"..."}}
// `origin` is present on messages a provider produced, so that a resume on another provider
// knows which blocks (signed thinking, encrypted reasoning) it can still replay. A line that
// is a bare message object (no "v") is a legacy line: the reference implementation wrote
// them, and they are read through read_stored_message(), converting the legacy shape.
//
// Crash safety: every line ends with '\n' and is written with one write(2) (TranscriptWriter),
// so a process killed at any moment leaves complete lines plus at most one partial last line.
// The reader reports that torn tail and skips it; it never reads it as data.
#pragma once
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::transcript {

inline constexpr std::int64_t kFormatVersion = 1;

// Which provider produced a message.
struct Origin {
  std::string provider;               // the provider's mount name
  std::optional<std::string> module;  // its module id, e.g. "provider-anthropic"
  std::optional<std::string> model;
};

// One message read from (or about to be written to) a transcript.
struct Record {
  boost::json::value message;  // always the unified shape
  std::optional<Origin> origin;
  std::optional<std::string> timestamp;
  bool converted_from_legacy = false;  // the line held the legacy shape
  std::size_t line = 0;                // 1-based line number when read from a file
};

// A line that was not read as data, and why ("line 7: not valid JSON: ...").
struct SkippedLine {
  std::size_t line = 0;
  std::string reason;
};

struct Transcript {
  std::vector<Record> records;
  std::vector<SkippedLine> skipped;
  // The last line had no '\n': a write was interrupted. It is listed in `skipped` too.
  bool torn_tail = false;
  std::size_t legacy_records = 0;       // records converted from the legacy shape
  std::size_t newer_format_lines = 0;   // lines of a format version newer than this reader's
  std::uint64_t intact_bytes = 0;       // bytes up to and including the last '\n'
};

// The line for one message, '\n' included. `timestamp` empty: no "ts" field.
std::string encode_line(const boost::json::value &message, const std::optional<Origin> &origin,
                        std::string_view timestamp);
std::string encode_line(const Record &record);

// Decodes a whole transcript's text. Never throws for bad lines: they land in `skipped`.
Transcript parse_transcript(std::string_view text);

// Reads and decodes `file`. Throws std::system_error when it cannot be read (a missing file
// included: callers decide whether "no transcript" is an error).
Transcript load_transcript(const std::filesystem::path &file);

// Reads a whole file; throws std::system_error naming it on failure.
std::string read_file(const std::filesystem::path &file);

// Writes `content` to `target` so that readers (and a crash) see either the old file or the
// new one, never a mix: a temporary file beside it, fsync, rename over `target`, fsync of the
// directory. With `sync` false the two fsyncs are skipped: still atomic for readers and for a
// killed process, but a power loss may leave the old file (or, on some filesystems, an empty
// one). Throws std::system_error; the temporary file is removed on failure.
void replace_file_atomically(const std::filesystem::path &target, std::string_view content,
                             bool sync = true);

// fsync of a directory, which makes a name created or renamed in it durable.
void sync_directory(const std::filesystem::path &directory);

// Appends lines to one transcript file.
//
// Each line goes out in ONE write(2) on an O_APPEND descriptor, so a kill leaves the file
// ending either before or after the line (a very large write interrupted by SIGKILL can stop
// part-way: that is the torn tail the reader skips). After a failed or short write the file is
// cut back to its previous length, so a later line is never glued to a fragment.
//
// Durability (`Sync`): with each_line, fdatasync runs after every line, so a message is on
// disk when append() returns and survives a power loss; with none, lines reach the kernel's
// page cache only, which survives the process being killed but not the machine going down.
//
// Not thread-safe: one writer per file, serialised by the caller.
class TranscriptWriter {
 public:
  enum class Sync { each_line, none };

  // Opens `file` for appending, creating it (and syncing its directory, so the new name
  // survives a crash). A torn tail left by an earlier interrupted write is cut off first: it
  // was never a message, and a line appended after it would be glued to it.
  // Throws std::system_error.
  TranscriptWriter(std::filesystem::path file, Sync sync);
  ~TranscriptWriter();
  TranscriptWriter(const TranscriptWriter &) = delete;
  TranscriptWriter &operator=(const TranscriptWriter &) = delete;

  // `line` must end with '\n' (std::invalid_argument otherwise). Throws std::system_error.
  void append(std::string_view line);

  const std::filesystem::path &path() const noexcept { return file_; }
  std::uint64_t size() const noexcept { return size_; }
  // Bytes of a torn tail cut off when the file was opened (0 when it ended cleanly).
  std::uint64_t discarded_tail_bytes() const noexcept { return discarded_tail_; }

 private:
  std::filesystem::path file_;
  Sync sync_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t discarded_tail_ = 0;
};

}  // namespace amplifier::transcript
