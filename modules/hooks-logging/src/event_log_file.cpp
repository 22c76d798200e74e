#include "event_log_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace hooks_logging {

namespace {

std::runtime_error open_error(const std::filesystem::path &path, std::string_view reason) {
  return std::runtime_error("cannot open event log '" + path.string() +
                            "': " + std::string(reason));
}

// O_CLOEXEC: tools spawn processes, which must not inherit the log.
int open_for_append(const std::filesystem::path &path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// The log's folders that do not exist yet, made private to the user (0700): the events hold
// prompts, answers and tool output, as transcripts do.
void create_private_directories(const std::filesystem::path &folder, std::error_code &ec) {
  std::vector<std::filesystem::path> missing;
  for (auto at = folder; !at.empty() && !std::filesystem::exists(at, ec); at = at.parent_path()) {
    missing.push_back(at);
    if (at == at.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      ec = std::error_code(errno, std::generic_category());
      return;
    }
}

std::uint64_t size_of(int fd) {
  struct stat info {};
  return ::fstat(fd, &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
}

std::string system_error_text(std::string_view what, const std::filesystem::path &path, int error) {
  return std::string(what) + " " + path.string() + ": " + std::strerror(error);
}

}  // namespace

EventLogFile::EventLogFile(std::filesystem::path path, RotationPolicy rotation)
    : path_(std::move(path)), rotation_(rotation), rotate_at_(rotation.rotate_bytes) {
  std::error_code ec;
  if (path_.has_parent_path()) create_private_directories(path_.parent_path(), ec);
  if (ec) throw open_error(path_, "cannot create its directory: " + ec.message());
  fd_ = open_for_append(path_);
  if (fd_ < 0) throw open_error(path_, std::strerror(errno));
  ::fchmod(fd_, 0600);  // a log an older version made 0644 is made private too
  size_ = size_of(fd_);
}

EventLogFile::~EventLogFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::filesystem::path EventLogFile::rotated_path(std::uint32_t n) const {
  std::filesystem::path rotated = path_;
  rotated += "." + std::to_string(n);
  return rotated;
}

EventLogFile::Outcome EventLogFile::append(std::string_view line) {
  std::string buffer;
  buffer.reserve(line.size() + 1);
  buffer.append(line).push_back('\n');

  std::lock_guard lock(mutex_);
  Outcome outcome = Outcome::written;
  if (due_for_rotation(buffer.size()))
    outcome = rotate(buffer.size()) ? Outcome::rotated : Outcome::rotation_failed;
  // After a failed rotation the line still goes to the current file: a log that grows past
  // its limit loses nothing, a dropped event is gone for good.
  if (!write_line(buffer)) return Outcome::write_failed;
  return outcome;
}

bool EventLogFile::due_for_rotation(std::size_t line_bytes) const {
  // An empty file takes any line, however long: rotating it would only make another empty file.
  return rotation_.rotate_bytes != 0 && size_ > 0 && size_ + line_bytes > rotate_at_;
}

// Several writers (processes, or instances in one process) may log to one path. Shifting the
// files is done only while holding an flock on the file the path names, re-checked once held:
// two writers due at once take turns, and the second finds the path already rotated, so
// their renames never interleave (interleaved, one could rename a file onto another).
bool EventLogFile::rotate(std::size_t line_bytes) {
  for (;;) {
    if (another_writer_rotated()) {
      // Another writer rotated the path: its fresh file is the current one.
      if (!open_current()) return false;
      if (!due_for_rotation(line_bytes)) return true;
      continue;
    }
    int locked;
    do {
      locked = ::flock(fd_, LOCK_EX);
    } while (locked != 0 && errno == EINTR);
    if (locked == 0 && another_writer_rotated()) {
      ::flock(fd_, LOCK_UN);
      continue;
    }
    // Without the lock (a filesystem that has none) a lone writer still rotates safely.
    const bool rotated = shift_rotated_files() && open_current();  // closing drops the lock
    if (!rotated) {
      if (locked == 0) ::flock(fd_, LOCK_UN);
      // Tried again once the file has grown by another rotate_bytes, not at every line.
      rotate_at_ = size_ + rotation_.rotate_bytes;
    }
    return rotated;
  }
}

// <path>.<keep-1> -> <path>.<keep>, ..., <path>.1 -> <path>.2, then <path> -> <path>.1 (each
// rename replaces what was at its target, so the oldest file drops out). With no files to
// keep, the full file is removed.
bool EventLogFile::shift_rotated_files() {
  if (rotation_.keep_files == 0) {
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
      last_error_ = system_error_text("cannot remove", path_, errno);
      return false;
    }
    return true;
  }
  for (std::uint32_t n = rotation_.keep_files - 1; n >= 1; --n) {
    const std::filesystem::path from = rotated_path(n);
    if (::rename(from.c_str(), rotated_path(n + 1).c_str()) != 0 && errno != ENOENT) {
      last_error_ = system_error_text("cannot rename", from, errno);
      return false;
    }
  }
  if (::rename(path_.c_str(), rotated_path(1).c_str()) != 0) {
    last_error_ = system_error_text("cannot rename", path_, errno);
    return false;
  }
  return true;
}

// Opens <path> afresh and makes it the current file. On failure the old descriptor stays, so
// lines still land somewhere (in the file that was just renamed) rather than nowhere.
bool EventLogFile::open_current() {
  const int fd = open_for_append(path_);
  if (fd < 0) {
    last_error_ = system_error_text("cannot open", path_, errno);
    return false;
  }
  ::close(fd_);
  fd_ = fd;
  size_ = size_of(fd_);
  rotate_at_ = rotation_.rotate_bytes;
  return true;
}

bool EventLogFile::another_writer_rotated() const {
  struct stat ours {
  }, named{};
  if (::fstat(fd_, &ours) != 0) return false;
  if (::stat(path_.c_str(), &named) != 0) return true;  // renamed away, and not recreated yet
  return ours.st_ino != named.st_ino || ours.st_dev != named.st_dev;
}

bool EventLogFile::write_line(std::string_view buffer) {
  std::size_t done = 0;
  while (done < buffer.size()) {
    const ssize_t n = ::write(fd_, buffer.data() + done, buffer.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      last_error_ = std::strerror(n < 0 ? errno : EIO);
      size_ += done;  // a partial line may have landed; it counts toward the rotation limit
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  size_ += done;
  return true;
}

std::string EventLogFile::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

std::uint64_t EventLogFile::size() const {
  std::lock_guard lock(mutex_);
  return size_;
}

}  // namespace hooks_logging
