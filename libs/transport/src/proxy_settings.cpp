// HTTP(S)_PROXY / NO_PROXY, with curl's matching rules for NO_PROXY: "*" bypasses every host;
// an entry matches the host itself and its subdomains; a leading dot and a port are ignored.
#include "amplifier/transport/http_client.hpp"
#include "text.hpp"

#include <cstdlib>

namespace amplifier::transport {

namespace {

std::string environment(const char *lower, const char *upper) {
  if (const char *value = std::getenv(lower); value && *value) return value;
  if (const char *value = std::getenv(upper); value && *value) return value;
  return {};
}

using detail::lower_ascii;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// "example.com:8080" -> "example.com"; "[::1]:80" -> "::1"; a bare IPv6 address is kept.
std::string_view strip_port(std::string_view entry) {
  if (entry.starts_with('[')) {
    const auto close = entry.find(']');
    return close == std::string_view::npos ? entry : entry.substr(1, close - 1);
  }
  const auto colon = entry.find(':');
  if (colon != std::string_view::npos && entry.find(':', colon + 1) == std::string_view::npos)
    return entry.substr(0, colon);
  return entry;
}

bool bypasses_proxy(std::string_view no_proxy, std::string_view host) {
  const std::string wanted = lower_ascii(host);
  std::size_t start = 0;
  while (start <= no_proxy.size()) {
    std::size_t comma = no_proxy.find(',', start);
    if (comma == std::string_view::npos) comma = no_proxy.size();
    std::string_view entry = strip_port(trim(no_proxy.substr(start, comma - start)));
    start = comma + 1;
    if (entry == "*") return true;
    while (entry.starts_with('.')) entry.remove_prefix(1);
    if (entry.empty()) continue;
    const std::string domain = lower_ascii(entry);
    if (wanted == domain) return true;
    if (wanted.size() > domain.size() && wanted.ends_with(domain) &&
        wanted[wanted.size() - domain.size() - 1] == '.')
      return true;
  }
  return false;
}

}  // namespace

ProxySettings ProxySettings::from_environment() {
  ProxySettings settings;
  settings.http_proxy = environment("http_proxy", "HTTP_PROXY");
  settings.https_proxy = environment("https_proxy", "HTTPS_PROXY");
  settings.no_proxy = environment("no_proxy", "NO_PROXY");
  return settings;
}

std::string ProxySettings::proxy_for(std::string_view scheme, std::string_view host) const {
  const std::string &proxy = scheme == "https" ? https_proxy : http_proxy;
  if (proxy.empty() || bypasses_proxy(no_proxy, host)) return {};
  return proxy;
}

}  // namespace amplifier::transport
