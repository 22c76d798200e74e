// A command's output kept within a byte budget: the beginning and the end are kept (where the
// command says what it does and how it ended), the middle is dropped and a note says how many
// bytes went. Memory stays bounded whatever the command prints.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace tool_bash {

class OutputCapture {
 public:
  // Keeps at most `max_bytes` bytes: the first half and the last half.
  explicit OutputCapture(std::size_t max_bytes);

  void append(std::string_view data);

  std::size_t total_bytes() const noexcept { return total_; }
  // Bytes of the middle left out of text() (0 when everything fits).
  std::size_t elided_bytes() const;

  // The kept output as valid UTF-8 (invalid sequences become U+FFFD; cuts never split a
  // character), with "\n... [N bytes of output elided] ...\n" between head and tail when the
  // middle was dropped.
  std::string text() const;

 private:
  std::size_t head_limit_;
  std::size_t tail_limit_;
  std::string head_;
  std::string tail_;  // the last bytes seen after the head filled, at most 2 * tail_limit_
  std::size_t total_ = 0;
};

}  // namespace tool_bash
