// The special-purpose address ranges (IANA's IPv4 and IPv6 special-purpose registries, less the
// few globally reachable entries), checked by prefix on the address's bytes.
#include "amplifier/transport/address_rules.hpp"

#include <boost/asio/ip/address.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <stdexcept>

namespace amplifier::transport {

namespace {

namespace ip = boost::asio::ip;

struct Range {
  std::array<std::uint8_t, 16> prefix;  // the first bytes matter, up to `bits`
  unsigned bits;
  const char *what;
};

template <std::size_t N>
bool has_prefix(const std::array<unsigned char, N> &bytes,
                const std::array<std::uint8_t, 16> &prefix, unsigned bits) {
  for (unsigned i = 0; i < bits; ++i) {
    const unsigned mask = 0x80u >> (i % 8);
    if ((bytes[i / 8] & mask) != (prefix[i / 8] & mask)) return false;
  }
  return true;
}

constexpr Range kIpv4Ranges[] = {
    {{0}, 8, "an unspecified / 'this network' address (0.0.0.0/8)"},
    {{10}, 8, "a private address (10.0.0.0/8, RFC 1918)"},
    {{100, 64}, 10, "a shared address (100.64.0.0/10, carrier-grade NAT)"},
    {{127}, 8, "a loopback address (127.0.0.0/8)"},
    {{169, 254}, 16, "a link-local address (169.254.0.0/16)"},
    {{172, 16}, 12, "a private address (172.16.0.0/12, RFC 1918)"},
    {{192, 0, 0}, 24, "an IETF protocol address (192.0.0.0/24)"},
    {{192, 0, 2}, 24, "a documentation address (192.0.2.0/24)"},
    {{192, 88, 99}, 24, "a 6to4 relay address (192.88.99.0/24)"},
    {{192, 168}, 16, "a private address (192.168.0.0/16, RFC 1918)"},
    {{198, 18}, 15, "a benchmarking address (198.18.0.0/15)"},
    {{198, 51, 100}, 24, "a documentation address (198.51.100.0/24)"},
    {{203, 0, 113}, 24, "a documentation address (203.0.113.0/24)"},
    {{224}, 4, "a multicast address (224.0.0.0/4)"},
    {{240}, 4, "a reserved or broadcast address (240.0.0.0/4)"},
};

constexpr Range kIpv6Ranges[] = {
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, "a local-use NAT64 address (64:ff9b:1::/48)"},
    {{0x01}, 64, "a discard-only address (100::/64)"},
    {{0x20, 0x01, 0x00, 0x00}, 32, "a Teredo address (2001::/32)"},
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "a documentation address (2001:db8::/32)"},
    {{0x3f, 0xff}, 20, "a documentation address (3fff::/20)"},
    {{0xfc}, 7, "a unique-local address (fc00::/7)"},
    {{0xfe, 0x80}, 10, "a link-local address (fe80::/10)"},
    {{0xfe, 0xc0}, 10, "a site-local address (fec0::/10)"},
    {{0xff}, 8, "a multicast address (ff00::/8)"},
};

std::optional<std::string> ipv4_reason(const ip::address_v4 &address) {
  const auto bytes = address.to_bytes();
  for (const Range &range : kIpv4Ranges)
    if (has_prefix(bytes, range.prefix, range.bits)) return std::string(range.what);
  return std::nullopt;
}

// The IPv4 address an IPv6 address carries in its last (or, for 6to4, its 3rd to 6th) bytes,
// with the form's name: such addresses reach the IPv4 address (mapped sockets, NAT64, 6to4).
std::optional<std::pair<ip::address_v4, const char *>> embedded_ipv4(
    const ip::address_v6 &address) {
  const auto bytes = address.to_bytes();
  auto tail = [&](std::size_t at) {
    return ip::address_v4(
        ip::address_v4::bytes_type{bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]});
  };
  if (address.is_v4_mapped()) return std::pair{tail(12), "IPv4-mapped"};
  if (has_prefix(bytes, {}, 96) && !address.is_loopback() && !address.is_unspecified())
    return std::pair{tail(12), "IPv4-compatible"};
  if (has_prefix(bytes, {0x00, 0x64, 0xff, 0x9b}, 96)) return std::pair{tail(12), "NAT64"};
  if (has_prefix(bytes, {0x20, 0x02}, 16)) return std::pair{tail(2), "6to4"};
  return std::nullopt;
}

std::optional<std::string> ipv6_reason(const ip::address_v6 &address) {
  if (address.is_unspecified()) return "the unspecified address (::)";
  if (address.is_loopback()) return "the loopback address (::1)";
  if (auto carried = embedded_ipv4(address)) {
    if (auto reason = ipv4_reason(carried->first))
      return std::string("an ") + carried->second + " form of " + carried->first.to_string() +
             ", " + *reason;
    return std::nullopt;
  }
  const auto bytes = address.to_bytes();
  for (const Range &range : kIpv6Ranges)
    if (has_prefix(bytes, range.prefix, range.bits)) return std::string(range.what);
  if (!has_prefix(bytes, {0x20}, 3)) return "a reserved address (outside 2000::/3, global unicast)";
  return std::nullopt;
}

// An IPv4-mapped IPv6 address is the IPv4 address as far as networks go.
ip::address unmapped(const ip::address &address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  return address;
}

struct Network {
  ip::address base;
  unsigned bits = 0;

  bool contains(const ip::address &candidate) const {
    if (candidate.is_v4() != base.is_v4()) return false;
    if (candidate.is_v4())
      return has_prefix(candidate.to_v4().to_bytes(), widen(base.to_v4().to_bytes()), bits);
    return has_prefix(candidate.to_v6().to_bytes(), widen(base.to_v6().to_bytes()), bits);
  }

  template <std::size_t N>
  static std::array<std::uint8_t, 16> widen(const std::array<unsigned char, N> &bytes) {
    std::array<std::uint8_t, 16> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = bytes[i];
    return out;
  }
};

Network parse_network(const std::string &text) {
  const auto slash = text.find('/');
  boost::system::error_code error;
  const ip::address base = unmapped(ip::make_address(text.substr(0, slash), error));
  if (error) throw std::invalid_argument("'" + text + "' is not an IP address or CIDR network");
  const unsigned width = base.is_v4() ? 32 : 128;
  unsigned bits = width;
  if (slash != std::string::npos) {
    const char *first = text.data() + slash + 1;
    const char *last = text.data() + text.size();
    const auto [end, parse_error] = std::from_chars(first, last, bits);
    if (parse_error != std::errc() || end != last || first == last || bits > width)
      throw std::invalid_argument("'" + text + "' has an invalid prefix length (0-" +
                                  std::to_string(width) + ")");
  }
  return Network{base, bits};
}

}  // namespace

std::optional<std::string> non_public_address_reason(std::string_view text) {
  boost::system::error_code error;
  const ip::address address = ip::make_address(std::string(text), error);
  if (error) return "not an IP address";
  return address.is_v4() ? ipv4_reason(address.to_v4()) : ipv6_reason(address.to_v6());
}

AddressFilter make_address_filter(const AddressPolicy &policy) {
  if (policy.allow_private)
    return [](std::string_view, std::string_view) -> std::optional<std::string> {
      return std::nullopt;
    };
  std::vector<Network> allowed;
  for (const std::string &text : policy.allowed_networks) allowed.push_back(parse_network(text));
  return [allowed](std::string_view, std::string_view text) -> std::optional<std::string> {
    auto reason = non_public_address_reason(text);
    if (!reason) return std::nullopt;
    boost::system::error_code error;
    const ip::address address = unmapped(ip::make_address(std::string(text), error));
    if (error) return reason;
    for (const Network &network : allowed)
      if (network.contains(address)) return std::nullopt;
    return reason;
  };
}

}  // namespace amplifier::transport
