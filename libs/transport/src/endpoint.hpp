// An http(s) URL split into what a connection and a request line need.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace amplifier::transport::detail {

struct Endpoint {
  bool tls = false;
  std::string scheme;     // "http" or "https"
  std::string host;       // for DNS, connect, SNI and certificate checks (IPv6 unbracketed)
  std::string port;       // numeric
  std::string authority;  // the Host header: host[:port], port omitted when it is the default
  std::string target;     // origin-form: /path?query
  std::string user;       // decoded userinfo (proxy URLs)
  std::string password;
  bool host_is_ip = false;

  // scheme://authority/path?query: the absolute-form request target sent to a proxy.
  std::string absolute_url() const { return scheme + "://" + authority + target; }
};

// Parses an absolute http:// or https:// URL. On failure returns nullopt and says why.
std::optional<Endpoint> parse_endpoint(std::string_view url, std::string &problem);

}  // namespace amplifier::transport::detail
