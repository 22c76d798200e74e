#include "audit_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hooks_approval {

AuditLog::AuditLog(std::filesystem::path path, Warn warn)
    : path_(std::move(path)), warn_(std::move(warn)) {}

AuditLog::~AuditLog() {
  if (fd_ >= 0) ::close(fd_);
}

bool AuditLog::open_locked() {
  if (fd_ >= 0) return true;
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  return fd_ >= 0;
}

void AuditLog::append(std::string_view line) {
  std::string text(line);
  text += '\n';
  std::lock_guard lock(mutex_);
  bool written = open_locked();
  if (written) {
    ssize_t n;
    do {
      n = ::write(fd_, text.data(), text.size());
    } while (n < 0 && errno == EINTR);
    written = n == static_cast<ssize_t>(text.size());
  }
  if (!written && !warned_) {
    warned_ = true;
    warn_("hooks-approval: cannot write the audit file " + path_.string() + ": " +
          std::strerror(errno) + " (approvals still apply; they are not recorded)");
  }
}

}  // namespace hooks_approval
