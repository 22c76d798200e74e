// Transcript files: crash-safe appends, atomic replacement, reading.
#include "amplifier/transcript.hpp"
#include "line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

constexpr std::size_t kCopyBlockBytes = 1 << 20;

std::string temporary_name_for(const fs::path &target) {
  std::random_device random;
  return target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(random());
}

}  // namespace

std::string read_file(const fs::path &file, std::uint64_t max_bytes) {
  Descriptor fd(open_or_fail(file, O_RDONLY));
  const std::uint64_t size = file_size(fd.get(), file);
  if (max_bytes != 0 && size > max_bytes)
    throw std::runtime_error(file.string() + " is " + std::to_string(size) +
                             " bytes, more than the " + std::to_string(max_bytes) +
                             " bytes such a file may have; not read");
  std::string text;
  text.resize(size);
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

FileReplacement::FileReplacement(fs::path target, bool sync)
    : target_(std::move(target)),
      temporary_(target_.parent_path() / temporary_name_for(target_)),
      sync_(sync),
      fd_(open_or_fail(temporary_, O_WRONLY | O_CREAT | O_EXCL, 0600)) {}

FileReplacement::~FileReplacement() {
  if (fd_ < 0) return;  // committed
  ::close(fd_);
  std::error_code ignored;
  fs::remove(temporary_, ignored);
}

void FileReplacement::append(std::string_view data) { write_all(fd_, data, temporary_); }

void FileReplacement::commit() {
  if (sync_) sync_or_fail(fd_, temporary_);  // the data is on disk before the name points at it
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail("cannot rename onto", target_);
  ::close(std::exchange(fd_, -1));
  if (sync_) sync_directory(target_.parent_path());  // and the rename itself survives a crash
}

void replace_file_atomically(const fs::path &target, std::string_view content, bool sync) {
  FileReplacement replacement(target, sync);
  replacement.append(content);
  replacement.commit();
}

void copy_file_atomically(const fs::path &source, const fs::path &target, bool sync) {
  Descriptor in(open_or_fail(source, O_RDONLY));
  FileReplacement copy(target, sync);
  std::string block(kCopyBlockBytes, '\0');
  for (;;) {
    const ssize_t got = ::read(in.get(), block.data(), block.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      fail("cannot read", source);
    }
    if (got == 0) break;
    copy.append(std::string_view(block.data(), static_cast<std::size_t>(got)));
  }
  copy.commit();
}

namespace detail {

namespace {
constexpr std::size_t kReadBlockBytes = 1 << 20;
}  // namespace

LineReader::LineReader(fs::path file, std::uint64_t max_line_bytes)
    : file_(std::move(file)), max_line_bytes_(max_line_bytes) {
  Descriptor fd(open_or_fail(file_, O_RDONLY));
  size_at_open_ = file_size(fd.get(), file_);
  fd_ = fd.release();
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<LineReader::Line> LineReader::next() {
  for (;;) {
    const char *data = buffer_.data();
    if (const void *newline = std::memchr(data + scanned_, '\n', buffer_.size() - scanned_)) {
      const std::size_t end = static_cast<std::size_t>(static_cast<const char *>(newline) - data);
      if (max_line_bytes_ != 0 && end - start_ > max_line_bytes_) {
        ++line_number_;
        throw_line_too_long();
      }
      Line line{std::string_view(data + start_, end - start_), true, end + 1 - start_};
      start_ = scanned_ = end + 1;
      ++line_number_;
      return line;
    }
    scanned_ = buffer_.size();
    if (max_line_bytes_ != 0 && scanned_ - start_ > max_line_bytes_) return skip_overlong_line();
    if (eof_) {
      if (start_ == buffer_.size()) return std::nullopt;
      Line torn{std::string_view(data + start_, buffer_.size() - start_), false,
                buffer_.size() - start_};
      start_ = scanned_ = buffer_.size();
      ++line_number_;
      return torn;
    }
    // Only the line being read stays: what came before it was handed out already.
    buffer_.erase(0, start_);
    scanned_ -= start_;
    start_ = 0;
    read_block();
  }
}

// The line under way is longer than the limit: the rest of it is read and dropped block by
// block, to tell a complete line (an error) from a torn tail (skipped like any other).
std::optional<LineReader::Line> LineReader::skip_overlong_line() {
  std::uint64_t bytes = buffer_.size() - start_;
  ++line_number_;
  for (;;) {
    buffer_.clear();
    start_ = scanned_ = 0;
    if (eof_) return Line{{}, false, bytes};
    read_block();
    if (std::memchr(buffer_.data(), '\n', buffer_.size()) != nullptr) throw_line_too_long();
    bytes += buffer_.size();
  }
}

void LineReader::throw_line_too_long() const {
  throw TranscriptLimitError(file_.string() + ": line " + std::to_string(line_number_) +
                                 " is longer than max_line_bytes (" +
                                 std::to_string(max_line_bytes_) +
                                 " bytes), so it is not read into memory; raise max_line_bytes "
                                 "to load it (the transcript stays as it is)",
                             "max_line_bytes", max_line_bytes_);
}

void LineReader::read_block() {
  const std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + kReadBlockBytes);
  for (;;) {
    const ssize_t got = ::read(fd_, buffer_.data() + old_size, kReadBlockBytes);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      buffer_.resize(old_size);
      fail("cannot read", file_, error);
    }
    buffer_.resize(old_size + static_cast<std::size_t>(got));
    eof_ = got == 0;
    return;
  }
}

}  // namespace detail

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
