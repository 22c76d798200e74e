// An append-only JSON-lines file that rotates at a size limit.
//
// THREADS: append() may be called from any number of threads; a mutex makes every line one
// uninterrupted write(2) on an O_APPEND descriptor, so lines never interleave (not even with
// another process appending to the same file) and each line is in the kernel's hands, i.e.
// flushed, when append() returns.
//
// Rotation happens between two lines, under the same mutex, so no line is ever split across
// two files or lost: when the next line would take the file past `rotate_bytes`, the file is
// renamed to <path>.1 (an older .1 becomes .2, and so on up to <path>.<keep_files>; the oldest
// beyond that is overwritten) and the line goes to a fresh <path>. A line longer than
// `rotate_bytes` on its own is written whole to a fresh file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

namespace hooks_logging {

struct RotationPolicy {
  std::uint64_t rotate_bytes = 0;  // 0: never rotate
  std::uint32_t keep_files = 0;    // rotated files kept beside the current one; 0: none
};

class EventLogFile {
 public:
  enum class Outcome {
    written,
    rotated,          // the file was rotated, then the line written to the fresh one
    rotation_failed,  // rotating failed (see last_error): the line went to the current file
    write_failed,     // the system refused (disk full, ...): not written; later lines are tried
  };

  // Creates the parent directories and opens (or creates) the file for appending; an existing
  // file's size counts toward the rotation limit.
  // Throws std::runtime_error naming the path and the reason.
  EventLogFile(std::filesystem::path path, RotationPolicy rotation);
  ~EventLogFile();
  EventLogFile(const EventLogFile &) = delete;
  EventLogFile &operator=(const EventLogFile &) = delete;

  // Appends `line` plus '\n'.
  Outcome append(std::string_view line);
  // The last error, for a warning ("No space left on device", "rename ...: Permission denied").
  std::string last_error() const;

  const std::filesystem::path &path() const noexcept { return path_; }
  // The rotated file number `n` (1 is the newest): <path>.<n>.
  std::filesystem::path rotated_path(std::uint32_t n) const;
  // Bytes in the current file.
  std::uint64_t size() const;

 private:
  bool due_for_rotation(std::size_t line_bytes) const;  // with the mutex held
  bool rotate(std::size_t line_bytes);                  // with the mutex held
  bool shift_rotated_files();                           // with the mutex held
  bool open_current();                                  // with the mutex held
  bool another_writer_rotated() const;                  // with the mutex held
  bool write_line(std::string_view buffer);             // with the mutex held

  const std::filesystem::path path_;
  const RotationPolicy rotation_;
  mutable std::mutex mutex_;
  int fd_ = -1;                  // guarded by mutex_
  std::uint64_t size_ = 0;       // guarded by mutex_
  std::uint64_t rotate_at_ = 0;  // guarded by mutex_: the size past which the next rotation is due
  std::string last_error_;       // guarded by mutex_
};

}  // namespace hooks_logging
