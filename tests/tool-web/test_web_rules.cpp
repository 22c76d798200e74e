// web_fetch's rules as units: URLs it takes, how references resolve, domain lists, content
// types and charsets.
#include "content_type.hpp"
#include "domain_rules.hpp"
#include "web_url.hpp"

#include <doctest/doctest.h>

namespace tool_web {
namespace {

TEST_CASE("urls: only absolute http(s) URLs with a host") {
  std::string problem;
  auto url = parse_web_url("  https://Docs.Example.COM./a?b=1  ", problem);
  REQUIRE(url.has_value());
  CHECK(url->host == "docs.example.com");
  CHECK(url->scheme == "https");
  CHECK(url->text == "https://Docs.Example.COM./a?b=1");
  CHECK(parse_web_url("http://[::1]:8080/", problem)->host == "::1");
  CHECK_FALSE(parse_web_url("file:///etc/passwd", problem).has_value());
  CHECK(problem.find("only http and https") != std::string::npos);
  CHECK_FALSE(parse_web_url("ftp://example.com/", problem).has_value());
  CHECK_FALSE(parse_web_url("/relative/path", problem).has_value());
  CHECK(problem.find("not a valid absolute URL") != std::string::npos);
  CHECK_FALSE(parse_web_url("http:///nohost", problem).has_value());
}

TEST_CASE("urls: a host with percent-escapes or odd characters is refused before any rule") {
  // The domain rules once saw the decoded "allowed.example\0.evil.org" as a subdomain of
  // evil.org (or of nothing), while the resolver stopped at the NUL.
  std::string problem;
  for (const char *url : {"https://allowed.example%00.evil.org/", "http://a%2eexample/",
                          "http://exa%6dple.com/", "http://a_b%0a.example/"}) {
    INFO(url);
    CHECK_FALSE(parse_web_url(url, problem).has_value());
    CHECK(problem.find("percent-escapes or characters a host name cannot have") !=
          std::string::npos);
  }
  CHECK(parse_web_url("http://127.0.0.1:9/", problem)->host == "127.0.0.1");
  CHECK(parse_web_url("https://sub_domain.example-1.com/", problem)->host ==
        "sub_domain.example-1.com");
}

TEST_CASE("urls: references resolve against the page they came from") {
  CHECK(resolve_reference("https://a.example/x/y.html", "z.html") == "https://a.example/x/z.html");
  CHECK(resolve_reference("https://a.example/x/y.html", "/root") == "https://a.example/root");
  CHECK(resolve_reference("https://a.example/x/", "//b.example/p") == "https://b.example/p");
  CHECK(resolve_reference("https://a.example/x/", "../up?q=1#f") == "https://a.example/up?q=1#f");
  CHECK(resolve_reference("https://a.example/", "http://c.example/") == "http://c.example/");
  CHECK_FALSE(resolve_reference("https://a.example/", "bad ref with spaces").has_value());
}

TEST_CASE("domains: an entry covers the host and its subdomains; deny wins") {
  DomainRules open({}, {"Ads.example.com", "*.tracker.net"});
  CHECK_FALSE(open.refusal("example.com").has_value());
  CHECK(open.refusal("ads.example.com").has_value());
  CHECK(open.refusal("x.ads.example.com").has_value());
  CHECK(open.refusal("tracker.net").has_value());
  CHECK_FALSE(open.refusal("notads.example.com").has_value());
  CHECK(open.refusal("ads.example.com")->find("denied_domains entry 'ads.example.com'") !=
        std::string::npos);

  DomainRules closed({"example.com", ".python.org"}, {"private.example.com"});
  CHECK_FALSE(closed.refusal("example.com").has_value());
  CHECK_FALSE(closed.refusal("docs.python.org").has_value());
  CHECK(closed.refusal("badexample.com").has_value());
  CHECK(closed.refusal("private.example.com").has_value());
  CHECK(closed.refusal("other.org")->find("not in allowed_domains (example.com, python.org)") !=
        std::string::npos);
}

TEST_CASE("content types: textual kinds pass, binary ones are refused") {
  const auto kind = [](std::string_view header, std::string_view body = "") {
    return classify(parse_content_type(header), body);
  };
  CHECK(kind("text/html; charset=UTF-8") == ContentKind::html);
  CHECK(kind("application/xhtml+xml") == ContentKind::html);
  CHECK(kind("application/json") == ContentKind::json);
  CHECK(kind("application/vnd.api+json") == ContentKind::json);
  CHECK(kind("text/plain") == ContentKind::text);
  CHECK(kind("text/markdown") == ContentKind::text);
  CHECK(kind("application/rss+xml") == ContentKind::text);
  CHECK(kind("image/png") == ContentKind::binary);
  CHECK(kind("application/pdf") == ContentKind::binary);
  CHECK(kind("application/octet-stream") == ContentKind::binary);
  CHECK(kind("", "<!DOCTYPE html><p>x") == ContentKind::html);
  CHECK(kind("", "plain words") == ContentKind::text);
  CHECK(kind("", std::string_view("\x89PNG\0\0", 6)) == ContentKind::binary);
  CHECK(kind("text/plain", std::string_view("a\0b", 3)) == ContentKind::binary);
  const ContentType type = parse_content_type(R"(Text/HTML ; Charset="ISO-8859-1")");
  CHECK(type.media_type == "text/html");
  CHECK(type.charset == "iso-8859-1");
}

TEST_CASE("charsets: Latin-1 converted, invalid UTF-8 replaced, meta charset found") {
  CHECK(to_utf8("caf\xE9", "iso-8859-1") == "caf\xC3\xA9");
  CHECK(to_utf8("ok \xC3\xA9", "utf-8") == "ok \xC3\xA9");
  CHECK(to_utf8("bad \xFF\xC3", "") == "bad \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(to_utf8("\xED\xA0\x80", "") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(meta_charset(R"(<head><meta charset="windows-1252">)") == "windows-1252");
  CHECK(
      meta_charset(R"(<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">)") ==
      "iso-8859-1");
  CHECK(meta_charset("<p>charset=nothing</p>").empty());
}

}  // namespace
}  // namespace tool_web
