// html_to_text: what is dropped, what is kept and how it reads.
#include "html_text.hpp"
#include "nesting_limit.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>

namespace tool_web {
namespace {

bool has(const std::string &text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

const char *const kPage = R"HTML(<!DOCTYPE html>
<html><head><title>  The   Title &amp; more </title>
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body>
<header><a href="/">Site home</a> banner text</header>
<nav><ul><li><a href="/a">Nav link</a></li></ul></nav>
<main>
<article>
<header><h1>Article <em>heading</em></h1></header>
<p>First   paragraph
   with <a href="/docs/page.html">a relative link</a> and <a href="https://other.example/x?y=1">an absolute one</a>.</p>
<p>Entities: &lt;tag&gt; &copy; caf&eacute; &#x263A;</p>
<h2>Lists</h2>
<ul><li>one</li><li>two<ul><li>two-a</li></ul></li></ul>
<ol start="3"><li>three</li><li>four</li></ol>
<pre><code>int main() {
  return 0;
}</code></pre>
<p>Inline <code>x = 1</code> code.</p>
<blockquote>Quoted words</blockquote>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
<form><label>Search</label><input name="q"><button>Go</button></form>
<div hidden>hidden text</div><div style="display: none">invisible text</div>
<noscript>enable javascript</noscript><svg><text>svg text</text></svg>
<p><a href="#top">Back to top</a> <a href="javascript:void(0)">script link</a> <img src="i.png" alt="a diagram"></p>
</article>
</main>
<aside>Sidebar text</aside>
<footer>Footer text</footer>
</body></html>)HTML";

TEST_CASE("html: the title, and text without scripts, styles, navigation and chrome") {
  const HtmlPage page = html_to_text(kPage, "https://example.com/base/index.html");
  CAPTURE(page.text);
  CHECK(page.title == "The Title & more");
  for (std::string_view gone :
       {"color: red", "script text", "Site home", "banner text", "Nav link", "Sidebar text",
        "Footer text", "hidden text", "invisible text", "enable javascript", "svg text", "Go"})
    CHECK_MESSAGE(!has(page.text, gone), gone);
  CHECK(has(page.text, "# Article heading"));  // an article's own header stays
  CHECK(has(page.text, "## Lists"));
}

TEST_CASE("html: links absolute, whitespace collapsed, entities decoded") {
  const HtmlPage page = html_to_text(kPage, "https://example.com/base/index.html");
  CAPTURE(page.text);
  CHECK(has(page.text,
            "First paragraph with [a relative link](https://example.com/docs/page.html) "
            "and [an absolute one](https://other.example/x?y=1)."));
  CHECK(has(page.text, "Entities: <tag> \xC2\xA9 caf\xC3\xA9 \xE2\x98\xBA"));
  CHECK(has(page.text, "Back to top script link [image: a diagram]"));
}

TEST_CASE("html: lists, code, quotes and tables read as Markdown-like text") {
  const HtmlPage page = html_to_text(kPage, "https://example.com/");
  CAPTURE(page.text);
  CHECK(has(page.text, "- one\n- two\n  - two-a"));
  CHECK(has(page.text, "3. three\n4. four"));
  CHECK(has(page.text, "```\nint main() {\n  return 0;\n}\n```"));
  CHECK(has(page.text, "Inline `x = 1` code."));
  CHECK(has(page.text, "> Quoted words"));
  CHECK(has(page.text, "Name | Value\na | 1"));
  CHECK_FALSE(has(page.text, "\n\n\n"));
}

TEST_CASE("html: paragraphs are separated by one blank line") {
  const HtmlPage page = html_to_text("<p>a</p>\n\n<p>b</p><div>c</div><div>d</div>", "http://h/");
  CHECK(page.text == "a\n\nb\n\nc\nd");
}

TEST_CASE("html: <base href> decides where relative links point") {
  const HtmlPage page = html_to_text(
      R"(<html><head><base href="https://cdn.example.org/root/"></head><body><a href="doc">d</a></body></html>)",
      "https://example.com/page");
  CHECK(page.text == "[d](https://cdn.example.org/root/doc)");
}

TEST_CASE("html: empty links and headings leave no markup") {
  const HtmlPage page =
      html_to_text(R"(<h2> </h2><a href="/x"><img src="y.png"></a><p>text</p>)", "http://h/");
  CHECK(page.text == "text");
}

TEST_CASE("html: tag soup is read as browsers read it") {
  const HtmlPage soup =
      html_to_text("<p>unclosed <b>bold <i>both</p> after</b> <td>cell", "http://h/");
  CHECK(has(soup.text, "unclosed bold both"));
  CHECK(has(soup.text, "after"));
  CHECK_FALSE(soup.cut_at_depth);
}

TEST_CASE("html: deep nesting is converted up to the limit, fast, and the cut is said") {
  std::string nested;
  for (int i = 0; i < 100; ++i) nested += "<div><span>";
  const HtmlPage fine = html_to_text(nested + "deep text", "http://h/");
  CHECK(fine.text == "deep text");
  CHECK_FALSE(fine.cut_at_depth);

  // A megabyte of unclosed <div>s: the parser's cost grows with depth times tags.
  std::string hostile = "<p>before</p>";
  for (int i = 0; i < 200'000; ++i) hostile += "<div>";
  hostile += "never reached";
  const auto started = std::chrono::steady_clock::now();
  const HtmlPage cut = html_to_text(hostile, "http://h/");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  CHECK(cut.cut_at_depth);
  CHECK(cut.text == "before");
}

TEST_CASE("html nesting: what adds depth and what does not") {
  std::string flat;
  for (int i = 0; i < 1000; ++i) flat += "<p>para<li>item<br><img src=x><td>cell";
  CHECK(shallow_prefix(flat, 10) == flat.size());  // closed implicitly or void
  std::string scripted = "<script>";
  for (int i = 0; i < 1000; ++i) scripted += "<div>";
  scripted += "</SCRIPT><!-- <div><div><div> --><div></div>";
  CHECK(shallow_prefix(scripted, 2) == scripted.size());
  const std::string stray = "<div></span></span><div><div>";
  CHECK(shallow_prefix(stray, 2) == stray.find("<div><div>") + 5);  // stray end tags close nothing
  const std::string closing = "<div><span><b></div><div><div>";
  CHECK(shallow_prefix(closing, 3) == closing.size());  // </div> closes what it holds
}
}  // namespace
}  // namespace tool_web
