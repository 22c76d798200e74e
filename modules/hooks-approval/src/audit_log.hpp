// The approvals audit file: one JSON line per decision, appended.
//
// The file is created on the first decision (parent directories too) with mode 0600, since
// the commands it records may be sensitive. Each line is one write(2) on an O_APPEND
// descriptor under a mutex, so lines never interleave, not even with another session
// appending to the same file. A failure to write is reported once, through `warn`, and never
// stops the decision itself: an approval must not be skipped because the disk is full.
#pragma once
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace hooks_approval {

class AuditLog {
 public:
  using Warn = std::function<void(const std::string &)>;

  AuditLog(std::filesystem::path path, Warn warn);
  ~AuditLog();
  AuditLog(const AuditLog &) = delete;
  AuditLog &operator=(const AuditLog &) = delete;

  // Appends `line` and a newline.
  void append(std::string_view line);

  const std::filesystem::path &path() const noexcept { return path_; }

 private:
  bool open_locked();

  const std::filesystem::path path_;
  const Warn warn_;
  std::mutex mutex_;
  int fd_ = -1;          // guarded by mutex_
  bool warned_ = false;  // guarded by mutex_
};

}  // namespace hooks_approval
