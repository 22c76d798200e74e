// WHATWG event-stream interpretation, incrementally. Lines are found with memchr (the hot
// loop); only a line split across chunks is copied into partial_line_.
#include "amplifier/transport/sse_parser.hpp"

#include <charconv>
#include <cstring>

namespace amplifier::transport {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// The first CR or LF in [begin, end), or end. Short ranges (small network reads) are scanned
// directly; longer ones with memchr, which is vectorised.
const char *find_line_end(const char *begin, const char *end) {
  if (end - begin < 32) {
    for (const char *cursor = begin; cursor < end; ++cursor)
      if (*cursor == '\n' || *cursor == '\r') return cursor;
    return end;
  }
  const auto *lf = static_cast<const char *>(std::memchr(begin, '\n', end - begin));
  const char *limit = lf ? lf : end;
  const auto *cr = static_cast<const char *>(std::memchr(begin, '\r', limit - begin));
  return cr ? cr : limit;
}

struct Field {
  std::string_view name;
  std::string_view value;
};

// "name: value" -> {name, value}: split at the first colon, one leading space dropped. A line
// without a colon is a field name with an empty value.
Field split_field(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {line, {}};
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return {line.substr(0, colon), value};
}

bool all_ascii_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

SseParser::SseParser(EventHandler on_event) : on_event_(std::move(on_event)) {}

// Strips a UTF-8 BOM at the very start of the stream, even when it is split across chunks.
// Returns how many bytes of `chunk` it consumed.
std::size_t SseParser::consume_bom(std::string_view chunk) {
  std::size_t used = 0;
  while (bom_bytes_matched_ < kByteOrderMark.size() && used < chunk.size() &&
         chunk[used] == kByteOrderMark[bom_bytes_matched_]) {
    ++bom_bytes_matched_;
    ++used;
  }
  if (bom_bytes_matched_ == kByteOrderMark.size()) {
    at_stream_start_ = false;
  } else if (used < chunk.size()) {
    // Not a BOM after all: the bytes matched so far are ordinary content.
    partial_line_.append(kByteOrderMark.substr(0, bom_bytes_matched_));
    at_stream_start_ = false;
  }
  return used;
}

void SseParser::feed(std::string_view chunk) {
  std::size_t position = at_stream_start_ ? consume_bom(chunk) : 0;
  if (at_stream_start_) return;  // the whole chunk was (part of) a BOM
  if (skip_leading_lf_ && position < chunk.size()) {
    skip_leading_lf_ = false;
    if (chunk[position] == '\n') ++position;  // the LF of a CRLF split across chunks
  }
  const char *const end = chunk.data() + chunk.size();
  const char *cursor = chunk.data() + position;
  while (cursor < end) {
    const char *line_end = find_line_end(cursor, end);
    if (line_end == end) {
      partial_line_.append(cursor, end);
      return;
    }
    const std::string_view piece(cursor, line_end - cursor);
    if (partial_line_.empty()) {
      process_line(piece);
    } else {
      partial_line_.append(piece);
      process_line(partial_line_);
      partial_line_.clear();
    }
    cursor = line_end + 1;
    if (*line_end == '\r') {
      if (cursor == end)
        skip_leading_lf_ = true;
      else if (*cursor == '\n')
        ++cursor;
    }
  }
}

void SseParser::process_line(std::string_view line) {
  if (line.empty()) {
    dispatch_event();
    return;
  }
  if (line.front() == ':') return;  // comment (keep-alive pings)
  const Field field = split_field(line);
  process_field(field.name, field.value);
}

// The line the stream ended in the middle of: only its data and event type are taken into the
// report; it changes nothing else (an incomplete `retry` or `id` line is not applied).
void SseParser::report_cut_line(std::string_view line) {
  const Field field = split_field(line);
  if (field.name == "data") {
    data_.append(field.value);
    data_.push_back('\n');
  } else if (field.name == "event") {
    event_type_.assign(field.value);
  }
}

void SseParser::process_field(std::string_view name, std::string_view value) {
  has_fields_ = true;
  if (name == "data") {
    data_.append(value);
    data_.push_back('\n');
  } else if (name == "event") {
    event_type_.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (name == "retry") {
    // A value too large for 64 bits is not a valid reconnection time: it is ignored, as any
    // other invalid value is (std::stoull threw here and ended the stream).
    std::uint64_t milliseconds = 0;
    if (all_ascii_digits(value)) {
      const auto [end, error] =
          std::from_chars(value.data(), value.data() + value.size(), milliseconds);
      if (error == std::errc() && end == value.data() + value.size())
        reconnection_time_ms_ = milliseconds;
    }
  }
  // Any other field name is ignored, as the standard requires.
}

void SseParser::dispatch_event() {
  // The buffers are reset even if the handler throws, so the parser stays usable.
  struct ResetEventBuffers {
    SseParser &parser;
    ~ResetEventBuffers() {
      parser.data_.clear();
      parser.event_type_.clear();
      parser.has_fields_ = false;
    }
  } reset{*this};
  if (data_.empty()) return;  // an event without data is not dispatched
  const std::string_view data(data_.data(), data_.size() - 1);  // drop the last '\n'
  const std::string_view type = event_type_.empty() ? std::string_view("message") : event_type_;
  on_event_(SseEvent{type, data, last_event_id_});
}

SseStreamEnd SseParser::finish() {
  SseStreamEnd end;
  const bool partial_is_comment = !partial_line_.empty() && partial_line_.front() == ':';
  end.truncated = has_fields_ || (!partial_line_.empty() && !partial_is_comment);
  if (!partial_line_.empty() && !partial_is_comment) report_cut_line(partial_line_);
  if (!data_.empty()) {
    end.unterminated_type = event_type_.empty() ? std::string("message") : event_type_;
    end.unterminated_data = data_.substr(0, data_.size() - 1);
  }
  partial_line_.clear();
  data_.clear();
  event_type_.clear();
  has_fields_ = false;
  skip_leading_lf_ = false;
  at_stream_start_ = true;
  bom_bytes_matched_ = 0;
  return end;
}

}  // namespace amplifier::transport
