// Address rules (address_rules.hpp) and the client's address filter: checked on the address
// actually connected to, after name resolution, and never bypassed through a proxy.
#include "test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <mutex>

namespace amplifier::transport {
namespace {

using loopback::LoopbackProxy;
using loopback::LoopbackServer;
using loopback::ScriptedResponse;

using testing::get;

std::string port_of(const LoopbackServer &server) { return std::to_string(server.port()); }

HttpClientOptions filtered(AddressPolicy policy = {}) {
  HttpClientOptions options = testing::loopback_options();
  options.address_filter = make_address_filter(policy);
  return options;
}

bool mentions(const std::optional<KernelError> &failure, std::string_view text) {
  return failure && failure->message.find(text) != std::string::npos;
}

TEST_CASE("address rules: non-public ranges have a reason, public addresses none") {
  for (const char *address : {"127.0.0.1",
                              "127.255.0.9",
                              "10.1.2.3",
                              "172.16.0.1",
                              "172.31.255.255",
                              "192.168.1.1",
                              "100.64.0.1",
                              "169.254.169.254",
                              "0.0.0.0",
                              "224.0.0.1",
                              "255.255.255.255",
                              "::",
                              "::1",
                              "fc00::1",
                              "fd12:3456::1",
                              "fe80::1",
                              "ff02::1",
                              "::ffff:127.0.0.1",
                              "::ffff:10.0.0.1",
                              "::127.0.0.1",
                              "64:ff9b::a9fe:a9fe",
                              "2002:7f00:1::",
                              "2001:db8::1",
                              "100::1",
                              "fec0::1"}) {
    CAPTURE(address);
    CHECK(non_public_address_reason(address).has_value());
  }
  for (const char *address : {"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1",
                              "2606:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::"}) {
    CAPTURE(address);
    CHECK_FALSE(non_public_address_reason(address).has_value());
  }
  CHECK(*non_public_address_reason("127.0.0.1") == "a loopback address (127.0.0.0/8)");
  CHECK(non_public_address_reason("::ffff:127.0.0.1")->find("IPv4-mapped form of 127.0.0.1") !=
        std::string::npos);
  CHECK(*non_public_address_reason("localhost") == "not an IP address");
}

TEST_CASE("address rules: allowed networks exempt their addresses, mapped forms included") {
  const AddressFilter filter =
      make_address_filter({.allowed_networks = {"127.0.0.1", "10.1.0.0/16", "fd00::/8"}});
  CHECK_FALSE(filter("h", "127.0.0.1").has_value());
  CHECK_FALSE(filter("h", "::ffff:127.0.0.1").has_value());
  CHECK_FALSE(filter("h", "10.1.200.3").has_value());
  CHECK_FALSE(filter("h", "fd00::5").has_value());
  CHECK(filter("h", "127.0.0.2").has_value());
  CHECK(filter("h", "10.2.0.1").has_value());
  CHECK(filter("h", "::1").has_value());
  CHECK_FALSE(filter("h", "8.8.8.8").has_value());
  CHECK_FALSE(make_address_filter({.allow_private = true, .allowed_networks = {}})("h", "127.0.0.1")
                  .has_value());
  CHECK_THROWS_WITH_AS(make_address_filter({.allowed_networks = {"10.0.0.0/33"}}),
                       doctest::Contains("invalid prefix length"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_address_filter({.allowed_networks = {"intranet"}}),
                       doctest::Contains("not an IP address"), std::invalid_argument);
}

TEST_CASE("address filter: an IP literal is refused before any connection") {
  LoopbackServer server;
  testing::ClientThread thread(filtered());
  const auto response = testing::fetch(thread.client(), get(server.base_url() + "/"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::access_denied);
  CHECK_FALSE(response.failure->retryable);
  CHECK(mentions(response.failure, "refused to connect to 127.0.0.1: a loopback address"));
  CHECK(server.connections_accepted() == 0);
}

TEST_CASE("address filter: a name is checked on the addresses it resolves to") {
  LoopbackServer server;
  auto seen = std::make_shared<std::vector<std::string>>();
  auto mutex = std::make_shared<std::mutex>();
  HttpClientOptions options = testing::loopback_options();
  options.address_filter = [seen, mutex, inner = make_address_filter({})](
                               std::string_view host, std::string_view address) {
    std::lock_guard lock(*mutex);
    seen->push_back(std::string(host) + "=" + std::string(address));
    return inner(host, address);
  };
  testing::ClientThread thread(options);
  const auto response =
      testing::fetch(thread.client(), get("http://localhost:" + port_of(server) + "/"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::access_denied);
  CHECK(mentions(response.failure, "refused to connect to localhost (127.0.0.1)"));
  CHECK(server.connections_accepted() == 0);
  std::lock_guard lock(*mutex);
  CHECK(std::find(seen->begin(), seen->end(), "localhost=127.0.0.1") != seen->end());
}

TEST_CASE("address filter: numeric IPv4 spellings resolve to the address they mean") {
  LoopbackServer server;
  testing::ClientThread thread(filtered());
  for (const std::string host : {"2130706433", "0x7f000001", "0177.0.0.1", "127.1"}) {
    CAPTURE(host);
    const auto response =
        testing::fetch(thread.client(), get("http://" + host + ":" + port_of(server) + "/"));
    REQUIRE(response.failure.has_value());
    CHECK(response.failure->kind == ErrorKind::access_denied);
    CHECK(mentions(response.failure, "127.0.0.1"));
  }
  CHECK(server.connections_accepted() == 0);
}

TEST_CASE("address filter: an IPv4-mapped IPv6 literal is judged by its IPv4 address") {
  testing::ClientThread thread(filtered());
  const auto response = testing::fetch(thread.client(), get("http://[::ffff:127.0.0.1]:9/"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::access_denied);
  CHECK(mentions(response.failure, "IPv4-mapped form of 127.0.0.1"));
}

TEST_CASE("address filter: an allowed network connects as usual") {
  LoopbackServer server;
  server.enqueue(ScriptedResponse::json(200, R"({"ok":true})"));
  testing::ClientThread thread(filtered({.allowed_networks = {"127.0.0.0/8"}}));
  const auto response = testing::fetch(thread.client(), get(server.base_url() + "/"));
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == R"({"ok":true})");
}

TEST_CASE("address filter: a proxied route is refused, never sent unchecked") {
  LoopbackProxy proxy;
  HttpClientOptions options = filtered();
  options.proxy.http_proxy = proxy.url();
  testing::ClientThread thread(options);
  const auto response = testing::fetch(thread.client(), get("http://example.com/"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::access_denied);
  CHECK(mentions(response.failure, "through proxy"));
  CHECK(proxy.request_lines().empty());
}

}  // namespace
}  // namespace amplifier::transport
