// web_fetch against loopback servers (allow_private_addresses: true, as loopback is otherwise
// refused): conversion, redirects, limits, content types and failures.
#include "web_test_support.hpp"

namespace webtest {
namespace {

const json::object kLoopback{{"allow_private_addresses", true}};

json::object loopback_with(json::object extra) {
  json::object config = kLoopback;
  for (auto &[key, value] : extra) config[key] = value;
  return config;
}

TEST_CASE("web_fetch: an HTML page comes back as text, links absolute against the final URL") {
  LoopbackServer server;
  server.enqueue(redirect(302, "/docs/"));
  server.enqueue(page(R"(<html><head><title>Docs</title><script>alert(1)</script></head>
<body><nav>menu</nav><h1>Welcome</h1><p>Read <a href="guide.html">the guide</a>.</p></body></html>)"));
  auto session = web_session(kLoopback);
  const Fetched fetched = fetch(*session, server.base_url() + "/start");
  CAPTURE(fetched.output);
  REQUIRE(fetched.success);
  CHECK(fetched.says("Title: Docs\nURL: " + server.base_url() + "/docs/\n\n# Welcome"));
  CHECK(fetched.says("Read [the guide](" + server.base_url() + "/docs/guide.html)."));
  CHECK_FALSE(fetched.says("alert"));
  CHECK_FALSE(fetched.says("menu"));
  CHECK(fetched.result.at("final_url") == json::value(server.base_url() + "/docs/"));
  CHECK(fetched.result.at("redirects").as_array().size() == 1);
  CHECK(fetched.result.at("status") == 200);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].method == "GET");
  CHECK(requests[1].target == "/docs/");
  CHECK(requests[0].header("user-agent") == std::optional<std::string>("amplifier-web-fetch/0.1"));
}

TEST_CASE("web_fetch: JSON and plain text pass as they are") {
  LoopbackServer server;
  server.enqueue(page(R"({"a": [1, 2],  "b": "<p>"})", "application/json"));
  server.enqueue(page("line one\n\n   indented\n", "text/plain"));
  auto session = web_session(kLoopback);
  const Fetched json_page = fetch(*session, server.base_url() + "/data.json");
  REQUIRE(json_page.success);
  CHECK(json_page.says(R"({"a": [1, 2],  "b": "<p>"})"));
  CHECK(json_page.result.at("kind") == "json");
  const Fetched text = fetch(*session, server.base_url() + "/notes.txt");
  REQUIRE(text.success);
  CHECK(text.says("line one\n\n   indented"));
}

TEST_CASE("web_fetch: redirects stop at max_redirects with a clear error") {
  LoopbackServer server;
  server.set_default_response(redirect(301, "/again"));
  auto session = web_session(loopback_with({{"max_redirects", 2}}));
  const Fetched fetched = fetch(*session, server.base_url() + "/loop");
  REQUIRE(fetched.status == AMP_OK);
  CHECK_FALSE(fetched.success);
  CHECK(fetched.says("too many redirects fetching " + server.base_url() + "/loop (more than 2)"));
  CHECK(server.requests().size() == 3);
}

TEST_CASE("web_fetch: the body is read up to max_body_bytes, then the rest is left unread") {
  LoopbackServer server;
  ScriptedResponse big = page(std::string(8192, 'x'), "text/plain");
  big.framing = Framing::chunked;
  big.piece_sizes = {1024};
  big.fault = amplifier::loopback::Fault::stall;  // never ends: only a reader that stops returns
  big.fault_after_bytes = 4096;
  server.enqueue(big);
  auto session = web_session(loopback_with({{"max_body_bytes", 2048}, {"timeout_seconds", 20}}));
  const auto started = std::chrono::steady_clock::now();
  const Fetched fetched = fetch(*session, server.base_url() + "/big");
  CHECK(std::chrono::steady_clock::now() - started < 10s);
  REQUIRE(fetched.success);
  CHECK(fetched.result.at("body_truncated") == true);
  CHECK(fetched.says(std::string(2048, 'x') + "\n\n[The response is larger than 2048 bytes"));
}

TEST_CASE("web_fetch: max_chars cuts the text and says so") {
  LoopbackServer server;
  server.set_default_response(page("<p>" + std::string(500, 'a') + "</p>"));
  auto session = web_session(loopback_with({{"max_chars", 100}, {"max_chars_limit", 400}}));
  const Fetched by_default = fetch(*session, server.base_url() + "/");
  REQUIRE(by_default.success);
  CHECK(by_default.says(std::string(100, 'a') +
                        "\n\n[Cut: showing 100 of 500 characters (max_chars "
                        "100). Ask again with a larger max_chars, up to 400"));
  CHECK(by_default.result.at("truncated") == true);
  const Fetched asked =
      fetch(*session, json::object{{"url", server.base_url() + "/"}, {"max_chars", 10}});
  CHECK(asked.says(std::string(10, 'a') + "\n\n[Cut: showing 10 of 500"));
  const Fetched too_many =
      fetch(*session, json::object{{"url", server.base_url() + "/"}, {"max_chars", 401}});
  CHECK_FALSE(too_many.success);
  CHECK_MESSAGE(too_many.says("input.max_chars: must be at most 400"), too_many.output);
}

TEST_CASE("web_fetch: binary content types are refused by name") {
  LoopbackServer server;
  server.enqueue(page(std::string("\x89PNG\r\n\x1a\n", 8) + std::string(4096, '\0'), "image/png"));
  server.enqueue(page(std::string("%PDF-1.7\0", 9), ""));
  auto session = web_session(kLoopback);
  const Fetched png = fetch(*session, server.base_url() + "/logo.png");
  CHECK_FALSE(png.success);
  CHECK(png.says(server.base_url() + "/logo.png is image/png, which is not text"));
  const Fetched unlabelled = fetch(*session, server.base_url() + "/file");
  CHECK_FALSE(unlabelled.success);
  CHECK(unlabelled.says("is binary data, which is not text"));
}

TEST_CASE("web_fetch: an error status is a failure with the beginning of the body") {
  LoopbackServer server;
  ScriptedResponse missing = page("<h1>Not here</h1>\n" + std::string(10000, 'z'));
  missing.status = 404;
  server.enqueue(missing);
  auto session = web_session(kLoopback);
  const Fetched fetched = fetch(*session, server.base_url() + "/nope");
  CHECK_FALSE(fetched.success);
  CHECK(fetched.says("web_fetch: " + server.base_url() +
                     "/nope answered HTTP 404: <h1>Not here</h1> zzz"));
  CHECK(fetched.output.size() < 500);
}

TEST_CASE("web_fetch: a server slower than timeout_seconds is a timeout error") {
  LoopbackServer server;
  ScriptedResponse slow = page("<p>late</p>");
  slow.head_delay = 5s;
  server.enqueue(slow);
  auto session = web_session(loopback_with({{"timeout_seconds", 0.3}}));
  const Fetched fetched = fetch(*session, server.base_url() + "/slow");
  CHECK_FALSE(fetched.success);
  CHECK(fetched.says("web_fetch timed out (timeout_seconds 0.3) fetching " + server.base_url() +
                     "/slow"));
}

// The kernel checks input against the tool's schema first; what passes it the tool checks.
TEST_CASE("web_fetch: bad input is refused with the problem named") {
  auto session = web_session(kLoopback);
  const std::pair<json::object, std::string> cases[] = {
      {{}, "missing required property 'url'"},
      {{{"url", 5}}, "input.url: expected string"},
      {{{"url", "file:///etc/passwd"}}, "only http and https URLs can be fetched, not 'file:'"},
      {{{"url", "not a url"}}, "is not a valid absolute URL"},
      {{{"url", "http://x/"}, {"max_chars", 0}}, "input.max_chars: must be at least 1"},
      {{{"url", "http://x/"}, {"depth", 1}}, "unexpected property 'depth'"},
  };
  for (const auto &[input, message] : cases) {
    CAPTURE(json::serialize(input));
    const Fetched fetched = fetch(*session, input);
    REQUIRE(fetched.status == AMP_OK);
    CHECK_FALSE(fetched.success);
    CHECK_MESSAGE(fetched.says(message), fetched.output);
  }
}

TEST_CASE("web_fetch: converting a large page holds up no other fetch") {
  // Several megabytes of HTML take the converter a good fraction of a second or more; the
  // small page's answer arrives while that runs, and must not wait for it (the conversion
  // would otherwise sit on the I/O thread every fetch's bytes come through).
  std::string html = "<title>big</title>";
  for (int i = 0; i < 100'000; ++i)
    html += "<p>paragraph " + std::to_string(i) + " with <a href='/l" + std::to_string(i) +
            "'>a link</a> and <b>bold</b> <i>words</i></p>\n";
  LoopbackServer big_server, small_server;
  big_server.enqueue(page(html));
  ScriptedResponse small = page("<p>small page</p>");
  small.head_delay = 50ms;
  small_server.enqueue(small);
  auto session = web_session(loopback_with({{"max_body_bytes", 16 << 20}}));
  auto big = run_tool(*session, "web_fetch",
                      json::serialize(json::object{{"url", big_server.base_url() + "/big"}}));
  auto little = run_tool(*session, "web_fetch",
                         json::serialize(json::object{{"url", small_server.base_url()}}));
  REQUIRE(little->wait_finished(20s));
  const bool big_done = [&] {
    std::lock_guard lock(big->mutex);
    return big->finish_count > 0;
  }();
  CHECK_MESSAGE(!big_done, "the small page waited for the large one's conversion");
  REQUIRE(big->wait_finished(60s));
  CHECK(tool_outcome(little).says("small page"));
  CHECK(tool_outcome(big).says("paragraph 0 with [a link]"));
}

TEST_CASE("web_fetch: an immediate cancel ends a fetch under way as cancelled") {
  LoopbackServer server;
  ScriptedResponse slow = page("<p>late</p>");
  slow.head_delay = 10s;
  server.enqueue(slow);
  auto session = web_session(kLoopback);
  auto call =
      run_tool(*session, "web_fetch", json::serialize(json::object{{"url", server.base_url()}}));
  REQUIRE(server.wait_for_requests(1, 10s));
  session->coordinator().cancel_call(call->id, amplifier::CancelLevel::Immediate);
  REQUIRE(call->wait_finished(10s));
  CHECK(call->status == AMP_CANCELLED);
}

}  // namespace
}  // namespace webtest
