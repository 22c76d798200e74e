#include "terminal.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace streaming_ui {

namespace {

bool no_color_requested() {
  const char *value = std::getenv("NO_COLOR");
  return value && *value;
}

bool dumb_terminal() {
  const char *term = std::getenv("TERM");
  return term && std::string_view(term) == "dumb";
}

}  // namespace

Terminal::Terminal(const std::string &output) {
  if (output == "stdout") {
    fd_ = STDOUT_FILENO;
  } else if (output == "stderr") {
    fd_ = STDERR_FILENO;
  } else {
    fd_ = ::open(output.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd_ < 0) throw std::runtime_error("cannot open " + output + " for the display: " + std::strerror(errno));
    owned_ = true;
  }
  styled_ = ::isatty(fd_) == 1 && !no_color_requested() && !dumb_terminal();
}

Terminal::~Terminal() {
  if (owned_) ::close(fd_);
}

std::size_t Terminal::width() const {
  winsize size{};
  if (::ioctl(fd_, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 120;
}

void Terminal::write(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace streaming_ui
