// Which IP addresses a client fetching URLs it was handed (e.g. a model's web_fetch) must not
// reach: everything that is not a public unicast address. Loopback, private (RFC 1918), shared
// (CGNAT), link-local, unique-local, unspecified, multicast, broadcast, documentation and
// reserved ranges, and the IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible,
// NAT64, 6to4) judged by the IPv4 address they carry. Server-side request forgery reaches
// internal services through exactly these.
#pragma once

#include "amplifier/transport/http_client.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::transport {

// Why `address` (an IPv4 or IPv6 address as text) is not a public unicast address, e.g.
// "loopback (127.0.0.0/8)"; nullopt when it is public. Text that is not an IP address is
// "not an IP address".
std::optional<std::string> non_public_address_reason(std::string_view address);

struct AddressPolicy {
  // Allow every address (the filter then allows everything).
  bool allow_private = false;
  // Networks allowed although not public: CIDR ("10.1.0.0/16", "fd00::/8") or single
  // addresses ("127.0.0.1").
  std::vector<std::string> allowed_networks;
};

// A filter for HttpClientOptions::address_filter that refuses non-public addresses, except
// those inside policy.allowed_networks. Throws std::invalid_argument naming a malformed
// network.
AddressFilter make_address_filter(const AddressPolicy &policy);

}  // namespace amplifier::transport
