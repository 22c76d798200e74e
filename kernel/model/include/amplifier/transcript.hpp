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
//
// Size: files are read one line at a time, within ReadLimits, so a transcript with a huge
// message or a huge history either loads in bounded memory or fails naming the limit.
#pragma once
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
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

// An origin as the "origin" field of a line holds it, and back (nullopt when `value` is not a
// usable origin: it is advisory, so a damaged one is dropped rather than costing the message).
// Stores other than files (context-postgres) keep it in the same shape.
boost::json::object origin_json(const Origin &origin);
std::optional<Origin> origin_from_json(const boost::json::value &value);

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

// What reading a transcript from a file may cost, so that a damaged or enormous file fails
// with an error naming the limit instead of exhausting memory. 0 means no limit.
inline constexpr std::uint64_t kDefaultMaxLineBytes = 64ull << 20;      // 64 MiB
inline constexpr std::uint64_t kDefaultMaxHistoryBytes = 256ull << 20;  // 256 MiB
struct ReadLimits {
  // One line (one message) held in memory at a time: a longer complete line fails the read.
  // A longer torn last line is skipped like any torn tail, without being held.
  std::uint64_t max_line_bytes = kDefaultMaxLineBytes;
  // The whole file, for readers that keep every message (a resumed history): a larger file
  // fails before anything is read.
  std::uint64_t max_history_bytes = kDefaultMaxHistoryBytes;
};

// A transcript over one of its ReadLimits. what() names the file, the limit, its value and the
// way out, e.g. "/s/transcript.jsonl: line 7 is longer than max_line_bytes (67108864 bytes)...".
class TranscriptLimitError : public std::runtime_error {
 public:
  TranscriptLimitError(std::string message, std::string limit, std::uint64_t value)
      : std::runtime_error(std::move(message)), limit_(std::move(limit)), value_(value) {}
  const std::string &limit() const noexcept { return limit_; }  // "max_line_bytes", ...
  std::uint64_t value() const noexcept { return value_; }

 private:
  std::string limit_;
  std::uint64_t value_;
};

// Reads `file` one line at a time (never the whole file at once: memory holds one line, up to
// limits.max_line_bytes, plus what `on_record` keeps) and hands every record to `on_record` as
// it is decoded; returning false stops the read there. The result has no records, only what
// the read found besides them (skipped lines, counts, the torn tail).
// Throws std::system_error when the file cannot be read (a missing file included: callers
// decide whether "no transcript" is an error) and TranscriptLimitError past a limit.
Transcript read_transcript(const std::filesystem::path &file,
                           const std::function<bool(Record &&)> &on_record,
                           const ReadLimits &limits = {});

// Reads and decodes `file`, keeping every record (read_transcript, limits included).
Transcript load_transcript(const std::filesystem::path &file, const ReadLimits &limits = {});

// Reads a whole file of at most `max_bytes` bytes (0: any size); throws std::system_error
// naming it on failure, std::runtime_error naming the limit when it is larger.
std::string read_file(const std::filesystem::path &file, std::uint64_t max_bytes = 0);

// A file written in full beside `target` and then put in its place, so that readers (and a
// crash) see either the old file or the new one, never a mix: a temporary file, appends,
// then commit(): fsync, rename over `target`, fsync of the directory. With `sync` false the
// two fsyncs are skipped: still atomic for readers and for a killed process, but a power loss
// may leave the old file (or, on some filesystems, an empty one). A replacement destroyed
// without commit() removes its temporary file. Throws std::system_error.
class FileReplacement {
 public:
  FileReplacement(std::filesystem::path target, bool sync);
  ~FileReplacement();
  FileReplacement(const FileReplacement &) = delete;
  FileReplacement &operator=(const FileReplacement &) = delete;

  void append(std::string_view data);
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  bool sync_;
  int fd_ = -1;
};

// `content` put in place of `target` with one FileReplacement. Throws std::system_error; the
// temporary file is removed on failure.
void replace_file_atomically(const std::filesystem::path &target, std::string_view content,
                             bool sync = true);

// A copy of `source` put in place of `target` with one FileReplacement, read in blocks (never
// whole). Throws std::system_error.
void copy_file_atomically(const std::filesystem::path &source, const std::filesystem::path &target,
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
