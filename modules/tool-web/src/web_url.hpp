// URLs as web_fetch takes them: absolute http(s) with a host, and references (a link's href, a
// redirect's Location) resolved against the URL of the page they came from.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tool_web {

struct WebUrl {
  std::string text;    // as given, surrounding whitespace trimmed
  std::string scheme;  // "http" or "https"
  std::string host;    // lower case, without a trailing dot or IPv6 brackets
};

// An absolute http:// or https:// URL with a host; otherwise nullopt and `problem` says why.
std::optional<WebUrl> parse_web_url(std::string_view text, std::string &problem);

// `reference` resolved against the absolute URL `base` (RFC 3986), or nullopt when either
// does not parse.
std::optional<std::string> resolve_reference(std::string_view base, std::string_view reference);

}  // namespace tool_web
