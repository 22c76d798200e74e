// Readable plain text built from a document's pieces: runs of whitespace collapse to one space,
// blocks are separated by line breaks or one blank line (never more), and nested blocks carry a
// line prefix (list indentation, "> " for quotes). Inline markup (link brackets, backticks,
// heading marks) is opened lazily, so an element with no visible content leaves no trace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tool_web {

class TextWriter {
 public:
  // Words of `text`, whitespace collapsed; whitespace at either end becomes one pending space.
  void text(std::string_view text);
  // A block boundary before the next content: 1 a line break, 2 a blank line.
  void block(int line_breaks);
  // A fenced code block, its lines kept as they are.
  void code_block(std::string_view code);
  // Content written as it is (a list marker, a table separator): no collapsing.
  void literal(std::string_view text);
  // A marker between words (a list bullet, a table cell separator): a space on either side
  // unless it starts a line.
  void marker(std::string_view text);

  // Lines started from now on begin with the prefixes pushed, outermost first.
  void push_prefix(std::string prefix);
  void pop_prefix();

  // Inline markup around the content written until the matching close: `open` goes out just
  // before the first content, `close` after the last. Without content neither goes out, and
  // close_inline returns false.
  void open_inline(std::string open);
  bool close_inline(std::string_view close);

  // The text, without trailing whitespace.
  std::string finish();

 private:
  struct Open {
    std::string text;
    bool written = false;
  };
  // Starts content: pending line breaks, the line prefix or a pending space, open markup.
  void begin_content();
  void trim_trailing_spaces();

  std::string out_;
  int pending_breaks_ = 0;
  bool pending_space_ = false;
  bool at_line_start_ = true;
  std::vector<std::string> prefixes_;
  std::vector<Open> opens_;
};

}  // namespace tool_web
