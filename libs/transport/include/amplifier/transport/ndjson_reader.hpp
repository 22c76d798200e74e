// Incremental newline-delimited JSON (NDJSON / JSON Lines) reader: splits a byte stream into
// lines as chunks arrive. It does not parse JSON; each line is handed over as text.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace amplifier::transport {

class NdjsonReader {
 public:
  // `line` is valid only during the call; it never contains the line end.
  using LineHandler = std::function<void(std::string_view line)>;

  explicit NdjsonReader(LineHandler on_line);

  // Delivers every complete line in `chunk`. "\n" and "\r\n" end lines; blank (or
  // whitespace-only) lines are skipped.
  void feed(std::string_view chunk);
  // Delivers a final line that had no newline, then resets. Returns whether there was one.
  bool finish();
  // Drops a pending partial line without delivering it (a new stream starts).
  void reset() { partial_line_.clear(); }

 private:
  void deliver(std::string_view line);

  LineHandler on_line_;
  std::string partial_line_;
};

}  // namespace amplifier::transport
