// terminal_safe / TerminalTextStream: untrusted text made safe for a terminal.
#include <doctest/doctest.h>

#include "amplifier/terminal_text.hpp"

using amplifier::terminal_safe;
using amplifier::TerminalTextStream;

TEST_CASE("terminal text: OSC 52 and CSI cursor moves are shown in caret notation") {
  CHECK(terminal_safe("copy\x1b]52;c;cm0gLXJmIH4=\x07!") == "copy^[]52;c;cm0gLXJmIH4=^G!");
  CHECK(terminal_safe("a\x1b[2A\x1b[2Kb\rc") == "a^[[2A^[[2Kb^Mc");
  CHECK(terminal_safe("\x1b]52;c;eA==\x1b\\") == "^[]52;c;eA==^[\\");
  CHECK(terminal_safe(std::string_view("nul\0del\x7f", 8)) == "nul^@del^?");
}

TEST_CASE("terminal text: newlines, tabs and valid UTF-8 are kept byte for byte") {
  const std::string text = "line 1\n\tñ — 日本 😀 ✓\n";
  CHECK(terminal_safe(text) == text);
  CHECK(terminal_safe("") == "");
}

TEST_CASE("terminal text: C1 controls and invalid UTF-8 become U+FFFD") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(terminal_safe("\xc2\x9b"
                      "6n") == fffd + "6n");  // U+009B, CSI as a C1 control
  CHECK(terminal_safe("\x9b"
                      "2J") == fffd + "2J");  // a raw 8-bit CSI byte
  CHECK(terminal_safe("a\xc0\xaf"
                      "b") == "a" + fffd + fffd + "b");        // overlong '/'
  CHECK(terminal_safe("\xed\xa0\x80") == fffd + fffd + fffd);  // a surrogate
  CHECK(terminal_safe("cut \xe6\x97") == "cut " + fffd);       // cut at the end
  CHECK(terminal_safe("\xc2\xa0") == "\xc2\xa0");              // U+00A0 is text
}

TEST_CASE("terminal text stream: a character split between pieces is kept whole") {
  TerminalTextStream stream;
  std::string shown;
  const std::string text = "日本\x1b[H😀";
  for (char c : text) shown += stream.feed(std::string_view(&c, 1));
  shown += stream.finish();
  CHECK(shown == "日本^[[H😀");
  CHECK(stream.feed("\xe6\x97") == "");
  CHECK(stream.finish() == "\xEF\xBF\xBD");
}
