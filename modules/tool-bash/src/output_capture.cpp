#include "output_capture.hpp"

#include "amplifier/module_support/file_tools.hpp"  // tool_filesystem::to_valid_utf8

namespace tool_bash {

namespace {

// The length of `text` without a multi-byte character cut off at its end.
std::size_t without_partial_last_character(std::string_view text) {
  for (std::size_t back = 1; back <= 4 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return needed > back ? text.size() - back : text.size();
  }
  return text.size();
}

}  // namespace

OutputCapture::OutputCapture(std::size_t max_bytes)
    : head_limit_(max_bytes / 2), tail_limit_(max_bytes - max_bytes / 2) {}

void OutputCapture::append(std::string_view data) {
  total_ += data.size();
  const std::size_t to_head = std::min(data.size(), head_limit_ - head_.size());
  head_.append(data.substr(0, to_head));
  data.remove_prefix(to_head);
  if (data.empty()) return;
  tail_.append(data);
  // Trim only when the buffer has doubled, so appending stays amortised O(1).
  if (tail_.size() > 2 * tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
}

std::size_t OutputCapture::elided_bytes() const {
  const std::size_t kept_tail = std::min(tail_.size(), tail_limit_);
  return total_ - head_.size() - kept_tail;
}

std::string OutputCapture::text() const {
  if (elided_bytes() == 0) return tool_filesystem::to_valid_utf8(head_ + tail_);
  // Cut on character boundaries: the head before a partial sequence, the tail after one.
  const std::size_t head_keep = without_partial_last_character(head_);
  std::size_t tail_start = tail_.size() - tail_limit_;
  for (int i = 0; i < 3 && tail_start < tail_.size() &&
                  (static_cast<unsigned char>(tail_[tail_start]) & 0xC0) == 0x80;
       ++i)
    ++tail_start;
  const std::size_t dropped = total_ - head_keep - (tail_.size() - tail_start);
  return tool_filesystem::to_valid_utf8(head_.substr(0, head_keep)) + "\n... [" +
         std::to_string(dropped) + " bytes of output elided] ...\n" +
         tool_filesystem::to_valid_utf8(std::string_view(tail_).substr(tail_start));
}

}  // namespace tool_bash
