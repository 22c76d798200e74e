#include "amplifier/transport/ndjson_reader.hpp"

#include <cstring>

namespace amplifier::transport {

namespace {
bool is_blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}
}  // namespace

NdjsonReader::NdjsonReader(LineHandler on_line) : on_line_(std::move(on_line)) {}

void NdjsonReader::deliver(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!is_blank(line)) on_line_(line);
}

void NdjsonReader::feed(std::string_view chunk) {
  const char *cursor = chunk.data();
  const char *const end = chunk.data() + chunk.size();
  while (cursor < end) {
    const auto *newline = static_cast<const char *>(std::memchr(cursor, '\n', end - cursor));
    if (!newline) {
      partial_line_.append(cursor, end);
      return;
    }
    const std::string_view piece(cursor, newline - cursor);
    if (partial_line_.empty()) {
      deliver(piece);
    } else {
      partial_line_.append(piece);
      deliver(partial_line_);
      partial_line_.clear();  // keeps its capacity for the next split line
    }
    cursor = newline + 1;
  }
}

bool NdjsonReader::finish() {
  if (is_blank(partial_line_)) {
    partial_line_.clear();
    return false;
  }
  deliver(partial_line_);
  partial_line_.clear();
  return true;
}

}  // namespace amplifier::transport
