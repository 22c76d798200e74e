#include "web_url.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace tool_web {

namespace urls = boost::urls;

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ') text.remove_prefix(1);
  while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ') text.remove_suffix(1);
  return text;
}

std::string normalized_host(std::string host) {
  for (char &c : host)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  while (!host.empty() && host.back() == '.') host.pop_back();
  return host;
}

}  // namespace

std::optional<WebUrl> parse_web_url(std::string_view text, std::string &problem) {
  text = trim(text);
  const auto parsed = urls::parse_uri(text);
  if (!parsed) {
    problem = "'" + std::string(text) + "' is not a valid absolute URL (" +
              parsed.error().message() + ")";
    return std::nullopt;
  }
  WebUrl url{std::string(text), normalized_host(std::string(parsed->scheme())), {}};
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
  return url;
}

std::optional<std::string> resolve_reference(std::string_view base, std::string_view reference) {
  const auto base_url = urls::parse_uri(trim(base));
  const auto ref = urls::parse_uri_reference(trim(reference));
  if (!base_url || !ref) return std::nullopt;
  urls::url resolved;
  if (!urls::resolve(*base_url, *ref, resolved)) return std::nullopt;
  return std::string(resolved.buffer());
}

}  // namespace tool_web
