// An append-only JSON-lines file with a size cap.
//
// THREADS: append() may be called from any number of threads; a mutex makes every line one
// uninterrupted write(2) on an O_APPEND descriptor, so lines never interleave (not even with
// another process appending to the same file) and each line is in the kernel's hands, i.e.
// flushed, when append() returns.
#pragma once
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

namespace hooks_logging {

class EventLogFile {
 public:
  enum class Outcome {
    written,
    cap_reached,    // this line would pass max_bytes: not written, and nothing will be again
    capped,         // the cap was reached earlier: not written
    write_failed,   // the system refused (disk full, ...): not written; later lines are tried
  };

  // Creates the parent directories and opens (or creates) the file for appending; an existing
  // file's size counts toward the cap. `max_bytes` 0 means no cap.
  // Throws std::runtime_error naming the path and the reason.
  EventLogFile(std::filesystem::path path, std::uint64_t max_bytes);
  ~EventLogFile();
  EventLogFile(const EventLogFile &) = delete;
  EventLogFile &operator=(const EventLogFile &) = delete;

  // Appends `line` plus '\n'.
  Outcome append(std::string_view line);
  // The last write error, for a warning ("No space left on device").
  std::string last_error() const;

  const std::filesystem::path &path() const noexcept { return path_; }
  std::uint64_t size() const;

 private:
  const std::filesystem::path path_;
  const std::uint64_t max_bytes_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::uint64_t size_ = 0;  // guarded by mutex_
  bool capped_ = false;     // guarded by mutex_
  int last_errno_ = 0;      // guarded by mutex_
};

}  // namespace hooks_logging
