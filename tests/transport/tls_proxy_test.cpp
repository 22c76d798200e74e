// HTTPS against the loopback server's run-time test CA, and proxies (CONNECT and absolute-form).
#include "test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <mutex>

namespace amplifier::transport {
namespace {

using loopback::LoopbackProxy;
using loopback::LoopbackServer;
using loopback::ScriptedResponse;
using loopback::ServerOptions;

using testing::get;

ScriptedResponse ok(std::string body) { return ScriptedResponse::json(200, std::move(body)); }

TEST_CASE("tls: a certificate from an unknown CA is refused by default") {
  LoopbackServer server(ServerOptions{.tls = true});
  server.enqueue(ok("{}"));
  testing::ClientThread thread;
  const auto response = testing::fetch(thread.client(), get(server.base_url() + "/v1/models"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::network);
  CHECK_FALSE(response.failure->retryable);
  CHECK(response.failure->message.find("certificate verify failed") != std::string::npos);
  CHECK(server.requests().empty());
}

TEST_CASE("tls: trusting the test CA accepts the server, by IP and by name, with keep-alive") {
  LoopbackServer server(ServerOptions{.tls = true});
  server.enqueue(ok(R"({"n":1})"));
  server.enqueue(ok(R"({"n":2})"));
  server.enqueue(ok(R"({"n":3})"));
  const testing::TempFile ca(server.ca_pem());
  HttpClientOptions options = testing::loopback_options();
  options.tls.extra_ca_file = ca.path();
  testing::ClientThread thread(options);
  const auto first = testing::fetch(thread.client(), get(server.base_url() + "/v1/models"));
  REQUIRE_FALSE(first.failure.has_value());
  CHECK(first.body == R"({"n":1})");
  CHECK(testing::fetch(thread.client(), get(server.base_url() + "/v1/models")).body == R"({"n":2})");
  CHECK(server.connections_accepted() == 1);

  const std::string by_name = "https://localhost:" + std::to_string(server.port()) + "/v1/models";
  const auto named = testing::fetch(thread.client(), get(by_name));
  REQUIRE_FALSE(named.failure.has_value());
  CHECK(named.body == R"({"n":3})");
  CHECK(server.requests().back().header("host") == std::optional<std::string>("localhost:" + std::to_string(server.port())));
}

TEST_CASE("tls: the CA file must be readable") {
  HttpClientOptions options = testing::loopback_options();
  options.tls.extra_ca_file = "/nonexistent/ca.pem";
  testing::ClientThread thread(options);
  const auto response = testing::fetch(thread.client(), get("https://127.0.0.1:9/"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::configuration);
}

TEST_CASE("tls: turning verification off works and logs a warning") {
  LoopbackServer server(ServerOptions{.tls = true});
  server.enqueue(ok("{}"));
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto mutex = std::make_shared<std::mutex>();
  HttpClientOptions options = testing::loopback_options();
  options.tls.verify_peer = false;
  options.log = [warnings, mutex](LogLevel level, std::string_view message) {
    std::lock_guard lock(*mutex);
    if (level == LogLevel::warning) warnings->emplace_back(message);
  };
  testing::ClientThread thread(options);
  const auto response = testing::fetch(thread.client(), get(server.base_url() + "/"));
  REQUIRE_FALSE(response.failure.has_value());
  std::lock_guard lock(*mutex);
  REQUIRE_FALSE(warnings->empty());
  CHECK(warnings->front().find("verification is disabled") != std::string::npos);
}

TEST_CASE("proxy: HTTPS goes through an HTTP CONNECT tunnel") {
  LoopbackServer server(ServerOptions{.tls = true});
  server.enqueue(ok(R"({"via":"tunnel"})"));
  LoopbackProxy proxy;
  const testing::TempFile ca(server.ca_pem());
  HttpClientOptions options = testing::loopback_options();
  options.tls.extra_ca_file = ca.path();
  options.proxy.https_proxy = proxy.url();
  testing::ClientThread thread(options);
  const auto response = testing::fetch(thread.client(), get(server.base_url() + "/v1/messages"));
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == R"({"via":"tunnel"})");
  CHECK(proxy.request_lines() == std::vector<std::string>{"CONNECT 127.0.0.1:" + std::to_string(server.port())});
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/v1/messages");  // origin-form inside the tunnel
}

TEST_CASE("proxy: plain HTTP is sent in absolute form, with proxy credentials") {
  LoopbackServer server;
  server.enqueue(ok(R"({"via":"proxy"})"));
  LoopbackProxy proxy;
  HttpClientOptions options = testing::loopback_options();
  options.proxy.http_proxy = "http://user:secret@127.0.0.1:" + std::to_string(proxy.port());
  testing::ClientThread thread(options);
  const std::string url = server.base_url() + "/v1/chat?x=1";
  const auto response = testing::fetch(thread.client(), get(url));
  REQUIRE_FALSE(response.failure.has_value());
  CHECK(response.body == R"({"via":"proxy"})");
  CHECK(proxy.request_lines() == std::vector<std::string>{"GET " + url});
  CHECK(proxy.authorizations() == std::vector<std::string>{"Basic dXNlcjpzZWNyZXQ="});
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == url);
}

TEST_CASE("proxy: NO_PROXY sends the request direct") {
  LoopbackServer server;
  server.enqueue(ok("{}"));
  LoopbackProxy proxy;
  HttpClientOptions options = testing::loopback_options();
  options.proxy.http_proxy = proxy.url();
  options.proxy.no_proxy = "example.com,127.0.0.1";
  testing::ClientThread thread(options);
  REQUIRE_FALSE(testing::fetch(thread.client(), get(server.base_url() + "/")).failure.has_value());
  CHECK(proxy.request_lines().empty());
}

TEST_CASE("proxy: a refused CONNECT is a typed error") {
  LoopbackProxy proxy;  // only tunnels to 127.0.0.1; anything else gets 403
  HttpClientOptions options = testing::loopback_options();
  options.proxy.https_proxy = proxy.url();
  testing::ClientThread thread(options);
  const auto response = testing::fetch(thread.client(), get("https://api.example.invalid/v1/messages"));
  REQUIRE(response.failure.has_value());
  CHECK(response.failure->kind == ErrorKind::network);
  CHECK(response.failure->status_code == 403);
  CHECK(proxy.request_lines() == std::vector<std::string>{"CONNECT api.example.invalid:443"});
}

TEST_CASE("proxy: settings come from the environment, lower case first") {
  struct Restore {
    ~Restore() {
      ::unsetenv("https_proxy");
      ::unsetenv("HTTPS_PROXY");
      ::unsetenv("NO_PROXY");
    }
  } restore;
  ::setenv("HTTPS_PROXY", "http://upper:1", 1);
  ::setenv("https_proxy", "http://lower:2", 1);
  ::setenv("NO_PROXY", "internal", 1);
  const ProxySettings settings = ProxySettings::from_environment();
  CHECK(settings.https_proxy == "http://lower:2");
  CHECK(settings.no_proxy == "internal");
}

}  // namespace
}  // namespace amplifier::transport
