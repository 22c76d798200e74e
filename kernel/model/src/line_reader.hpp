// Reading a transcript file one line at a time (internal to amp_model: transcript_files.cpp
// implements it, transcript_lines.cpp decodes what it reads).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::transcript::detail {

// Holds at most one line (up to `max_line_bytes`) and one block of the file at a time.
class LineReader {
 public:
  struct Line {
    std::string_view text;    // without its '\n'; valid until the next call of next()
    bool complete = true;     // false: the last line, without '\n' (a torn tail)
    std::uint64_t bytes = 0;  // of the line, '\n' included
  };

  // Throws std::system_error naming the file when it cannot be opened. 0: no line limit.
  LineReader(std::filesystem::path file, std::uint64_t max_line_bytes);
  ~LineReader();
  LineReader(const LineReader &) = delete;
  LineReader &operator=(const LineReader &) = delete;

  // The next line, or nullopt at the end of the file. A torn tail longer than the limit comes
  // with empty text: it is not data anyway, and is skipped without being held. A complete line
  // longer than the limit throws TranscriptLimitError (max_line_bytes) naming it.
  std::optional<Line> next();

  std::uint64_t size_at_open() const noexcept { return size_at_open_; }
  const std::filesystem::path &file() const noexcept { return file_; }

 private:
  void read_block();  // appends up to one block to buffer_; sets eof_ when there is no more
  std::optional<Line> skip_overlong_line();
  [[noreturn]] void throw_line_too_long() const;  // for line line_number_

  const std::filesystem::path file_;
  const std::uint64_t max_line_bytes_;
  int fd_ = -1;
  std::uint64_t size_at_open_ = 0;
  std::string buffer_;
  std::size_t start_ = 0;    // where the next line starts in buffer_
  std::size_t scanned_ = 0;  // buffer_[start_, scanned_) holds no '\n'
  std::size_t line_number_ = 0;
  bool eof_ = false;
};

}  // namespace amplifier::transcript::detail
