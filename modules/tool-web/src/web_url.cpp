#include "web_url.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <algorithm>
#include <cctype>

namespace tool_web {

namespace urls = boost::urls;

namespace {

std::string trim_url(std::string_view text) {
  return boost::algorithm::trim_copy_if(
      std::string(text), [](char c) { return static_cast<unsigned char>(c) <= ' '; });
}

std::string normalized_host(std::string host) {
  boost::algorithm::to_lower(host);
  boost::algorithm::trim_right_if(host, [](char c) { return c == '.'; });
  return host;
}

// A host the domain rules and the resolver read alike: an IP address, or a name of letters,
// digits, '-', '_' and '.', as written (no percent-escapes). Boost.URL decodes "a.com%00.b.org"
// to a name with a NUL in it: the rules saw "...b.org", the resolver stopped at the NUL.
bool plain_host(const urls::url_view &url) {
  switch (url.host_type()) {
    case urls::host_type::ipv4:
    case urls::host_type::ipv6: return true;
    case urls::host_type::name: {
      const auto written = url.encoded_host();
      return !written.empty() && std::all_of(written.begin(), written.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
    }
    default: return false;  // none, or an IPvFuture literal
  }
}

}  // namespace

std::optional<WebUrl> parse_web_url(std::string_view text, std::string &problem) {
  const std::string trimmed = trim_url(text);
  text = trimmed;
  const auto parsed = urls::parse_uri(text);
  if (!parsed) {
    problem = "'" + std::string(text) + "' is not a valid absolute URL (" +
              parsed.error().message() + ")";
    return std::nullopt;
  }
  WebUrl url{trimmed, normalized_host(std::string(parsed->scheme())), {}};
  if (url.scheme != "http" && url.scheme != "https") {
    problem = "only http and https URLs can be fetched, not '" + std::string(parsed->scheme()) +
              ":' (" + url.text + ")";
    return std::nullopt;
  }
  url.host = normalized_host(parsed->host_address());
  if (url.host.empty()) {
    problem = "'" + url.text + "' has no host";
    return std::nullopt;
  }
  if (!plain_host(*parsed)) {
    problem = "'" + url.text +
              "' has a host with percent-escapes or characters a host name cannot have";
    return std::nullopt;
  }
  return url;
}

std::optional<std::string> resolve_reference(std::string_view base, std::string_view reference) {
  const std::string base_text = trim_url(base);  // the views parsed below point into these
  const std::string reference_text = trim_url(reference);
  const auto base_url = urls::parse_uri(base_text);
  const auto ref = urls::parse_uri_reference(reference_text);
  if (!base_url || !ref) return std::nullopt;
  urls::url resolved;
  if (!urls::resolve(*base_url, *ref, resolved)) return std::nullopt;
  return std::string(resolved.buffer());
}

}  // namespace tool_web
