// Transcript files: crash-safe appends, atomic replacement, reading.
#include "amplifier/transcript.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace amplifier::transcript {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string &what, const fs::path &file, int error = errno) {
  throw std::system_error(error, std::generic_category(), what + " " + file.string());
}

// Closes a descriptor on scope exit.
class Descriptor {
 public:
  explicit Descriptor(int fd) noexcept : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

int open_or_fail(const fs::path &file, int flags, mode_t mode = 0) {
  int fd;
  do {
    fd = ::open(file.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) fail("cannot open", file);
  return fd;
}

// Writes all of `data` at the descriptor's position (or the end, for O_APPEND). A regular
// file takes it in one call unless the disk fills up or a fatal signal arrives mid-way;
// the loop only finishes such a short write.
void write_all(int fd, std::string_view data, const fs::path &file) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", file);
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

void sync_or_fail(int fd, const fs::path &file) {
  if (::fsync(fd) != 0) fail("cannot fsync", file);
}

std::uint64_t file_size(int fd, const fs::path &file) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail("cannot stat", file);
  return static_cast<std::uint64_t>(info.st_size);
}

// The length of the file up to and including its last '\n' (0 when it has none): where a
// torn tail begins. Reads backwards in blocks, so opening a large transcript stays cheap.
std::uint64_t end_of_last_line(int fd, std::uint64_t size, const fs::path &file) {
  constexpr std::uint64_t kBlock = 64 * 1024;
  std::string buffer;
  for (std::uint64_t end = size; end > 0;) {
    const std::uint64_t begin = end > kBlock ? end - kBlock : 0;
    buffer.resize(end - begin);
    const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(begin));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail("cannot read", file);
    }
    if (static_cast<std::uint64_t>(got) != buffer.size()) fail("short read of", file, EIO);
    const std::size_t newline = buffer.rfind('\n');
    if (newline != std::string::npos) return begin + newline + 1;
    end = begin;
  }
  return 0;
}

std::string temporary_name_for(const fs::path &target) {
  std::random_device random;
  return target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(random());
}

}  // namespace

std::string read_file(const fs::path &file) {
  Descriptor fd(open_or_fail(file, O_RDONLY));
  std::string text;
  text.resize(file_size(fd.get(), file));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t got = ::read(fd.get(), text.data() + done, text.size() - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      fail("cannot read", file);
    }
    if (got == 0) break;  // the file shrank while being read: keep what is there
    done += static_cast<std::size_t>(got);
  }
  text.resize(done);
  return text;
}

void sync_directory(const fs::path &directory) {
  Descriptor fd(open_or_fail(directory.empty() ? fs::path(".") : directory,
                             O_RDONLY | O_DIRECTORY));
  sync_or_fail(fd.get(), directory);
}

void replace_file_atomically(const fs::path &target, std::string_view content, bool sync) {
  const fs::path temporary = target.parent_path() / temporary_name_for(target);
  try {
    Descriptor fd(open_or_fail(temporary, O_WRONLY | O_CREAT | O_EXCL, 0600));
    write_all(fd.get(), content, temporary);
    if (sync) sync_or_fail(fd.get(), temporary);  // the data is on disk before the name points at it
    if (::rename(temporary.c_str(), target.c_str()) != 0) fail("cannot rename onto", target);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  if (sync) sync_directory(target.parent_path());  // and the rename itself survives a crash
}

TranscriptWriter::TranscriptWriter(fs::path file, Sync sync) : file_(std::move(file)), sync_(sync) {
  const bool existed = fs::exists(file_);
  Descriptor fd(open_or_fail(file_, O_RDWR | O_APPEND | O_CREAT, 0600));
  const std::uint64_t size = file_size(fd.get(), file_);
  const std::uint64_t intact = end_of_last_line(fd.get(), size, file_);
  if (intact != size) {
    if (::ftruncate(fd.get(), static_cast<off_t>(intact)) != 0) fail("cannot truncate", file_);
    sync_or_fail(fd.get(), file_);
  }
  if (!existed) sync_directory(file_.parent_path());
  discarded_tail_ = size - intact;
  size_ = intact;
  fd_ = fd.release();
}

TranscriptWriter::~TranscriptWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void TranscriptWriter::append(std::string_view line) {
  if (line.empty() || line.back() != '\n')
    throw std::invalid_argument("a transcript line must end with a newline");
  try {
    write_all(fd_, line, file_);
    if (sync_ == Sync::each_line && ::fdatasync(fd_) != 0) fail("cannot fdatasync", file_);
  } catch (...) {
    // Cut back to the last complete line so the fragment can never prefix a later line;
    // if even that fails, the reader still skips the fragment as a corrupt line.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      // nothing more can be done here; the original error is the one worth reporting
    }
    throw;
  }
  size_ += line.size();
}

}  // namespace amplifier::transcript
