// What web_fetch refuses: private and loopback addresses however they are spelt or reached
// (checked by the transport on the address connected to, every redirect hop included), hosts
// outside the domain lists on any hop, and configs that would weaken the address rules.
#include "web_test_support.hpp"

namespace webtest {
namespace {

Fetched refused_fetch(const std::string &url, json::object config = {}) {
  auto session = web_session(config);
  Fetched fetched = fetch(*session, url);
  REQUIRE(fetched.status == AMP_OK);
  CHECK_FALSE(fetched.success);
  return fetched;
}

TEST_CASE("refused: loopback by literal, by name, IPv4-mapped and numeric spellings") {
  LoopbackServer server;
  const std::string port = port_of(server);
  const std::pair<std::string, std::string> cases[] = {
      {"http://127.0.0.1:" + port + "/", "refused to connect to 127.0.0.1: a loopback address"},
      {"http://localhost:" + port + "/", "refused to connect to localhost ("},
      {"http://[::ffff:127.0.0.1]:" + port + "/", "IPv4-mapped form of 127.0.0.1"},
      {"http://[::1]:" + port + "/", "::1: the loopback address"},
      {"http://2130706433:" + port + "/", "2130706433 (127.0.0.1): a loopback address"},
      {"http://0177.0.0.1:" + port + "/", "(127.0.0.1): a loopback address"},
      {"http://169.254.169.254/latest/meta-data/", "169.254.169.254: a link-local address"},
      {"http://10.0.0.1/", "a private address (10.0.0.0/8"},
  };
  for (const auto &[url, message] : cases) {
    CAPTURE(url);
    const Fetched fetched = refused_fetch(url);
    CHECK(fetched.says("web_fetch could not fetch " + url + ": "));
    CHECK(fetched.says(message));
    CHECK(fetched.says("allow_private_addresses: true"));
  }
  CHECK(server.connections_accepted() == 0);
}

TEST_CASE("refused: a redirect from an allowed server to a private address") {
  LoopbackServer server;
  const std::string port = port_of(server);
  server.enqueue(redirect(302, "http://127.0.0.2:" + port + "/internal"));
  server.enqueue(redirect(302, "http://[::1]:" + port + "/internal"));
  // 127.0.0.1 alone is let through, as an operator might allow one intranet host.
  const json::object config{{"allowed_private_networks", json::array{"127.0.0.1"}}};
  auto session = web_session(config);
  const Fetched first = fetch(*session, server.base_url() + "/public");
  CHECK_FALSE(first.success);
  CHECK(first.says("could not fetch http://127.0.0.2:" + port +
                   "/internal: refused to connect to "
                   "127.0.0.2: a loopback address"));
  const Fetched second = fetch(*session, server.base_url() + "/public");
  CHECK_FALSE(second.success);
  CHECK(second.says("refused to connect to ::1"));
  CHECK(server.requests().size() == 2);  // only the redirecting requests reached a server
}

TEST_CASE("refused: domain lists apply to every hop") {
  LoopbackServer server;
  const std::string port = port_of(server);
  server.set_default_response(redirect(302, "http://localhost:" + port + "/next"));
  const Fetched denied = refused_fetch(
      server.base_url() + "/",
      {{"allow_private_addresses", true}, {"denied_domains", json::array{"LOCALHOST"}}});
  CHECK(denied.says("web_fetch refused http://localhost:" + port +
                    "/next: localhost is denied by the denied_domains entry 'localhost'"));
  const Fetched not_allowed = refused_fetch(
      server.base_url() + "/",
      {{"allow_private_addresses", true}, {"allowed_domains", json::array{"127.0.0.1"}}});
  CHECK(not_allowed.says("localhost is not in allowed_domains (127.0.0.1)"));
  const Fetched first_hop =
      refused_fetch("http://docs.example.com/", {{"allowed_domains", json::array{"python.org"}}});
  CHECK(first_hop.says("docs.example.com is not in allowed_domains (python.org)"));
  CHECK(server.requests().size() == 2);
}

TEST_CASE("refused: configs that would weaken the rules fail the load, naming the key") {
  const std::pair<json::object, std::string> cases[] = {
      {{{"use_proxy", true}}, "'use_proxy' needs allow_private_addresses: true"},
      {{{"allowed_private_networks", json::array{"10.0.0.0/40"}}}, "invalid prefix length"},
      {{{"denied_domains", json::array{"*."}}},
       "'denied_domains' has an entry that names no domain"},
      {{{"max_body_bytes", 10}}, "max_body_bytes"},
  };
  for (const auto &[config, message] : cases) {
    CAPTURE(message);
    auto session = web_session(config);
    REQUIRE(session->load_failures().size() == 1);
    CHECK(session->load_failures()[0].error.find(message) != std::string::npos);
  }
}

}  // namespace
}  // namespace webtest
