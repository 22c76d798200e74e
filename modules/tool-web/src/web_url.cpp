#include "web_url.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace tool_web {

namespace urls = boost::urls;

namespace {

std::string trim(std::string_view text) {
  return boost::algorithm::trim_copy_if(
      std::string(text), [](char c) { return static_cast<unsigned char>(c) <= ' '; });
}

std::string normalized_host(std::string host) {
  boost::algorithm::to_lower(host);
  boost::algorithm::trim_right_if(host, [](char c) { return c == '.'; });
  return host;
}

}  // namespace

std::optional<WebUrl> parse_web_url(std::string_view text, std::string &problem) {
  const std::string trimmed = trim(text);
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
  return url;
}

std::optional<std::string> resolve_reference(std::string_view base, std::string_view reference) {
  const std::string base_text = trim(base);  // the views parsed below point into these
  const std::string reference_text = trim(reference);
  const auto base_url = urls::parse_uri(base_text);
  const auto ref = urls::parse_uri_reference(reference_text);
  if (!base_url || !ref) return std::nullopt;
  urls::url resolved;
  if (!urls::resolve(*base_url, *ref, resolved)) return std::nullopt;
  return std::string(resolved.buffer());
}

}  // namespace tool_web
