// Where the display writes, and whether it may style what it writes.
//
// Styling (colours, dim text, cursor movement such as the spinner's "\r" + erase-line) is used
// only when the output is a terminal, NO_COLOR is not set (https://no-color.org: present and
// not empty) and TERM is not "dumb". Piped or redirected output gets plain text.
//
// THREADS: not synchronised; the Display calls it under its own mutex.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace streaming_ui {

class Terminal {
 public:
  // "stdout", "stderr", or a path opened for appending (a file, a FIFO, a terminal device
  // such as /dev/tty). Throws std::runtime_error naming the path when it cannot be opened.
  explicit Terminal(const std::string &output);
  ~Terminal();
  Terminal(const Terminal &) = delete;
  Terminal &operator=(const Terminal &) = delete;

  bool styled() const noexcept { return styled_; }
  // Columns of the terminal; 120 when unknown or not a terminal.
  std::size_t width() const;

  // Writes all of `text` (retrying short writes); errors are ignored, as a display that
  // cannot be shown must not stop the session.
  void write(std::string_view text);

 private:
  int fd_ = -1;
  bool owned_ = false;
  bool styled_ = false;
};

// ANSI sequences, used only when Terminal::styled().
namespace ansi {
inline constexpr std::string_view kReset = "\x1b[0m";
inline constexpr std::string_view kBold = "\x1b[1m";
inline constexpr std::string_view kDim = "\x1b[2m";
inline constexpr std::string_view kDimItalic = "\x1b[2;3m";
inline constexpr std::string_view kRed = "\x1b[31m";
inline constexpr std::string_view kGreen = "\x1b[32m";
inline constexpr std::string_view kCyan = "\x1b[36m";
inline constexpr std::string_view kEraseLine = "\r\x1b[K";  // back to column 0, clear the line
}  // namespace ansi

}  // namespace streaming_ui
