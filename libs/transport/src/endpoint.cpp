#include "endpoint.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

namespace amplifier::transport::detail {

std::optional<Endpoint> parse_endpoint(std::string_view url, std::string &problem) {
  const auto parsed = boost::urls::parse_uri(url);
  if (!parsed) {
    problem = "invalid URL '" + std::string(url) + "': " + parsed.error().message();
    return std::nullopt;
  }
  const boost::urls::url_view &view = *parsed;
  Endpoint endpoint;
  endpoint.scheme = std::string(view.scheme());
  if (endpoint.scheme != "http" && endpoint.scheme != "https") {
    problem = "unsupported URL scheme '" + endpoint.scheme + "' (only http and https)";
    return std::nullopt;
  }
  endpoint.tls = endpoint.scheme == "https";
  endpoint.host = view.host_address();
  if (endpoint.host.empty()) {
    problem = "URL '" + std::string(url) + "' has no host";
    return std::nullopt;
  }
  const auto host_type = view.host_type();
  endpoint.host_is_ip = host_type == boost::urls::host_type::ipv4 ||
                        host_type == boost::urls::host_type::ipv6;
  const std::string default_port = endpoint.tls ? "443" : "80";
  endpoint.port = view.has_port() && !view.port().empty() ? std::string(view.port()) : default_port;
  endpoint.authority = std::string(view.encoded_host());  // keeps IPv6 brackets
  if (endpoint.port != default_port) endpoint.authority += ":" + endpoint.port;
  endpoint.target = std::string(view.encoded_target());
  if (endpoint.target.empty() || endpoint.target.front() != '/')
    endpoint.target.insert(0, "/");
  if (view.has_userinfo()) {
    endpoint.user = view.user();
    endpoint.password = view.password();
  }
  return endpoint;
}

}  // namespace amplifier::transport::detail
