#include "event_log_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace hooks_logging {

namespace {
std::runtime_error open_error(const std::filesystem::path &path, std::string_view reason) {
  return std::runtime_error("cannot open event log '" + path.string() + "': " +
                            std::string(reason));
}
}  // namespace

EventLogFile::EventLogFile(std::filesystem::path path, std::uint64_t max_bytes)
    : path_(std::move(path)), max_bytes_(max_bytes) {
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  if (ec) throw open_error(path_, "cannot create its directory: " + ec.message());
  // O_CLOEXEC: tools spawn processes, which must not inherit the log.
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw open_error(path_, std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) == 0) size_ = static_cast<std::uint64_t>(info.st_size);
}

EventLogFile::~EventLogFile() {
  if (fd_ >= 0) ::close(fd_);
}

EventLogFile::Outcome EventLogFile::append(std::string_view line) {
  std::string buffer;
  buffer.reserve(line.size() + 1);
  buffer.append(line).push_back('\n');

  std::lock_guard lock(mutex_);
  if (capped_) return Outcome::capped;
  if (max_bytes_ != 0 && size_ + buffer.size() > max_bytes_) {
    capped_ = true;
    return Outcome::cap_reached;
  }
  std::size_t done = 0;
  while (done < buffer.size()) {
    const ssize_t n = ::write(fd_, buffer.data() + done, buffer.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      last_errno_ = n < 0 ? errno : EIO;
      size_ += done;  // a partial line may have landed; count it against the cap
      return Outcome::write_failed;
    }
    done += static_cast<std::size_t>(n);
  }
  size_ += done;
  return Outcome::written;
}

std::string EventLogFile::last_error() const {
  std::lock_guard lock(mutex_);
  return std::strerror(last_errno_);
}

std::uint64_t EventLogFile::size() const {
  std::lock_guard lock(mutex_);
  return size_;
}

}  // namespace hooks_logging
