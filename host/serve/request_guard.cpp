#include "request_guard.hpp"

#include "api_types.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cctype>

namespace amplifier::host::serve {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_ip_address(const std::string &name) {
  boost::system::error_code ec;
  boost::asio::ip::make_address(name, ec);
  return !ec;
}

}  // namespace

std::optional<std::string> host_name_of(std::string_view host_header) {
  host_header = trim_blanks(host_header);
  if (host_header.empty()) return std::nullopt;
  std::string_view name = host_header;
  std::string_view port;
  if (name.front() == '[') {
    const auto close = name.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    port = name.substr(close + 1);
    name = name.substr(1, close - 1);
    if (!port.empty() && port.front() != ':') return std::nullopt;
  } else if (const auto colon = name.rfind(':'); colon != std::string_view::npos) {
    port = name.substr(colon);
    name = name.substr(0, colon);
  }
  if (!port.empty()) {
    port.remove_prefix(1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
  }
  // A hostname's characters only: no percent-escapes, no control bytes, no user info.
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '_';
      }))
    return std::nullopt;
  return lower(name);
}

bool host_allowed(std::string_view host_header, const std::vector<std::string> &allowed_hosts) {
  const auto name = host_name_of(host_header);
  if (!name) return false;
  if (*name == "localhost" || is_ip_address(*name)) return true;
  return std::any_of(allowed_hosts.begin(), allowed_hosts.end(),
                     [&](const std::string &allowed) { return lower(allowed) == *name; });
}

bool origin_allowed(std::string_view origin, std::string_view host_header,
                    std::string_view cors_origin) {
  if (origin.empty()) return true;
  if (cors_origin == "*" || (!cors_origin.empty() && origin == cors_origin)) return true;
  // The server's own page: the origin the browser loaded it from is the Host it sends.
  return lower(origin) == "http://" + lower(trim_blanks(host_header));
}

bool is_json_content_type(std::string_view content_type) {
  const std::string_view media = trim_blanks(content_type.substr(0, content_type.find(';')));
  return lower(media) == "application/json";
}

}  // namespace amplifier::host::serve
