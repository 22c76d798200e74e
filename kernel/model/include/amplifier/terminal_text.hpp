// Untrusted text (model output, tool output, error messages from a vendor) made safe to write
// to a terminal. Shared by the host's text output and hooks-streaming-ui: both link amp_model.
//
// A terminal obeys the control characters in what it prints: ESC starts sequences that move the
// cursor, rewrite the screen, retitle the window or (OSC 52) set the clipboard. So:
//   - "\n" and "\t" are kept;
//   - every other C0 control and DEL is shown in caret notation: ESC as "^[", BEL as "^G",
//     CR as "^M", DEL as "^?" (the sequence it started is then only printable text);
//   - C1 controls (U+0080..U+009F, which some terminals obey like ESC sequences) and bytes that
//     are not valid UTF-8 become U+FFFD;
//   - valid UTF-8 text is kept byte for byte.
#pragma once
#include <string>
#include <string_view>

namespace amplifier {

// `text` with its controls made visible (see above).
std::string terminal_safe(std::string_view text);

// The same for text that arrives in pieces (stream deltas): a UTF-8 sequence split between two
// pieces is kept whole, not replaced. Not thread-safe: one per stream.
class TerminalTextStream {
 public:
  // What can be shown of `piece` now (an incomplete sequence at its end waits for the next).
  std::string feed(std::string_view piece);
  // The rest at the end of the stream (an incomplete sequence becomes U+FFFD).
  std::string finish();

 private:
  std::string pending_;  // at most 3 bytes: the start of an incomplete UTF-8 sequence
};

}  // namespace amplifier
