// An HTML page as readable text (Markdown-like): scripts, styles, navigation, page headers and
// footers, asides, forms' controls and hidden elements dropped; headings as "#", paragraphs
// separated by a blank line, lists as "-" / "1." with nesting indented, quotes as "> ",
// pre blocks fenced with ```, inline code in backticks, table cells separated by "|", links
// as [text](absolute URL). Parsing is gumbo's (the HTML5 algorithm: any tag soup parses, and
// entities come decoded).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tool_web {

struct HtmlPage {
  std::string title;  // the <title>, whitespace collapsed; empty when there is none
  std::string text;
  // The page nests elements deeper than kMaxNesting: only the part before that was converted
  // (see nesting_limit.hpp for why).
  bool cut_at_depth = false;
};

inline constexpr std::size_t kMaxNesting = 256;

// `html` is UTF-8. Relative links resolve against the page's <base href> if it has one, else
// against `page_url`.
HtmlPage html_to_text(std::string_view html, std::string_view page_url);

}  // namespace tool_web
