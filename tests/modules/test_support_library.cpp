// The module support library: config reading, JSON parsing, path templates, the executor.
#include "amplifier/module_support/background_executor.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/paths.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <set>
#include <thread>

namespace ms = amplifier::module_support;
using namespace std::chrono_literals;

TEST_CASE("edit distance and suggestions") {
  CHECK(ms::edit_distance("chunk_sise", "chunk_size") == 1);
  CHECK(ms::edit_distance("modle", "model") == 1);  // a transposition costs one
  CHECK(ms::edit_distance("", "abc") == 3);
  CHECK(ms::edit_distance("kitten", "sitting") == 3);
  const std::vector<std::string> keys{"model", "chunk_size", "delay_ms", "responses"};
  CHECK(ms::closest_match("delay", keys) == "delay_ms");
  CHECK(ms::closest_match("respones", keys) == "responses");
  CHECK(!ms::closest_match("temperature", keys).has_value());
}

TEST_CASE("ConfigReader: typed getters, defaults and clear type errors") {
  ms::ConfigReader reader(
      R"({"name":"x","count":8.0,"ratio":0.5,"flag":true,"paths":"one","list":["a","b"],"none":null,"bad":[1]})",
      "demo config");
  CHECK(reader.get_string("name", "d") == "x");
  CHECK(reader.get_string("missing", "d") == "d");
  CHECK(reader.get_int("count", 0) == 8);  // 8.0 is an integer for YAML/JSON producers alike
  CHECK(reader.get_number("ratio", 0, 0, 1) == 0.5);
  CHECK(reader.get_bool("flag", false));
  CHECK(reader.get_string_list("paths", {}) == std::vector<std::string>{"one"});
  CHECK(reader.get_string_list("list", {}) == std::vector<std::string>{"a", "b"});
  CHECK(reader.get_int("none", 42) == 42);  // null counts as absent
  CHECK_THROWS_WITH_AS(reader.get_string("count", ""),
                       "demo config: 'count' must be a string, got a number (8)", ms::ConfigError);
  CHECK_THROWS_WITH_AS(reader.get_string_list("bad", {}),
                       "demo config: 'bad[0]' must be a string, got an integer (1)", ms::ConfigError);
  CHECK_THROWS_WITH_AS(reader.get_int("ratio", 0),
                       "demo config: 'ratio' must be an integer, got a number (0.5)", ms::ConfigError);
  CHECK_THROWS_WITH_AS(reader.get_int("count", 0, 10, 20),
                       "demo config: 'count' must be between 10 and 20, got 8", ms::ConfigError);
  CHECK(reader.unknown_keys().empty());
}

TEST_CASE("ConfigReader reports the keys nobody asked for") {
  ms::ConfigReader reader(R"({"modle":"m","chunk_size":4,"zzz":1})", "provider-x config");
  (void)reader.get_string("model", "");
  (void)reader.get_int("chunk_size", 8);
  CHECK(reader.unknown_keys() == std::vector<std::string>{"modle", "zzz"});
  const auto messages = reader.unknown_key_messages();
  REQUIRE(messages.size() == 2);
  CHECK(messages[0] == "provider-x config: unknown key 'modle' is ignored (did you mean 'model'?)");
  CHECK(messages[1] == "provider-x config: unknown key 'zzz' is ignored (known keys: chunk_size, model)");
}

TEST_CASE("ConfigReader refuses text that is not a JSON object") {
  CHECK_THROWS_WITH_AS(ms::ConfigReader("[1]", "c"), "c must be a JSON object, got an array",
                       ms::ConfigError);
  CHECK_THROWS_WITH_AS(ms::ConfigReader("{\"a\":", "c"),
                       doctest::Contains("c: invalid JSON at offset"), ms::ConfigError);
  CHECK(ms::ConfigReader("", "c").object().empty());
}

TEST_CASE("parse_json: clear errors, deep documents, trailing text") {
  CHECK_THROWS_WITH_AS(ms::parse_json("{\"a\": tru}", "payload"),
                       doctest::Contains("payload: invalid JSON at offset"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ms::parse_json("{} {}", "payload"),
                       doctest::Contains("unexpected text after the value"), std::invalid_argument);
  std::string deep(100, '[');
  deep += std::string(100, ']');
  CHECK(ms::parse_json(deep, "deep").is_array());
}

TEST_CASE("utf8_prefix_length never splits a character") {
  const std::string text = "ab\xC3\xA9" "cd";  // "abécd"
  CHECK(ms::utf8_prefix_length(text, 3) == 2);
  CHECK(ms::utf8_prefix_length(text, 4) == 4);
  CHECK(ms::utf8_prefix_length(text, 100) == text.size());
}

TEST_CASE("utf8_length counts characters; utf8_prefix_chars cuts after whole characters") {
  const std::string text = "ab\xC3\xA9" "c\xF0\x9F\x98\x80" "d";  // "abéc", an emoji, "d"
  CHECK(ms::utf8_length(text) == 6);
  CHECK(ms::utf8_length("") == 0);
  CHECK(ms::utf8_prefix_chars(text, 0) == 0);
  CHECK(ms::utf8_prefix_chars(text, 2) == 2);
  CHECK(ms::utf8_prefix_chars(text, 3) == 4);   // "abé"
  CHECK(ms::utf8_prefix_chars(text, 5) == 9);   // the emoji whole
  CHECK(ms::utf8_prefix_chars(text, 6) == text.size());
  CHECK(ms::utf8_prefix_chars(text, 100) == text.size());
}

TEST_CASE("path templates: ~ and {session_id}") {
  const char *old_home = std::getenv("HOME");
  const std::string saved = old_home ? old_home : "";
  ::setenv("HOME", "/home/tester", 1);
  CHECK(ms::expand_path_template("~/.amplifier/sessions/{session_id}/events.jsonl", "abc-123") ==
        "/home/tester/.amplifier/sessions/abc-123/events.jsonl");
  CHECK(ms::expand_path_template("/var/log/{session_id}-{session_id}.jsonl", "s") == "/var/log/s-s.jsonl");
  CHECK(ms::expand_home("~") == "/home/tester");
  CHECK(ms::expand_home("~other/x") == "~other/x");
  CHECK(ms::expand_path_template("/fixed/path.jsonl", "") == "/fixed/path.jsonl");
  CHECK_THROWS_AS(ms::expand_path_template("/logs/{session_id}.jsonl", "../escape"), std::invalid_argument);
  CHECK_THROWS_AS(ms::expand_path_template("/logs/{session_id}.jsonl", ""), std::invalid_argument);
  if (old_home) ::setenv("HOME", saved.c_str(), 1); else ::unsetenv("HOME");
}

TEST_CASE("BackgroundExecutor: one shared thread, started lazily, joined by the last owner") {
  std::thread::id worker;
  {
    auto first = ms::BackgroundExecutor::acquire();
    auto second = ms::BackgroundExecutor::acquire();
    CHECK(first == second);
    std::set<std::thread::id> threads;
    std::promise<void> done;
    std::atomic<int> ran{0};
    for (int i = 0; i < 100; ++i) {
      boost::asio::post(first->context(), [&, i] {
        threads.insert(std::this_thread::get_id());
        CHECK(first->running_in_this_thread());
        if (++ran == 100) done.set_value();
      });
    }
    REQUIRE(done.get_future().wait_for(5s) == std::future_status::ready);
    CHECK(threads.size() == 1);
    CHECK(!first->running_in_this_thread());
    worker = *threads.begin();
    CHECK(worker != std::this_thread::get_id());
  }
  // The last owner is gone: a new acquire builds a new executor, and a cancelled timer still
  // delivers its completion before the destructor's join returns.
  std::atomic<bool> aborted{false};
  {
    auto executor = ms::BackgroundExecutor::acquire();
    auto timer = std::make_shared<boost::asio::steady_timer>(executor->context(), 1h);
    timer->async_wait([&aborted, timer](const boost::system::error_code &ec) {
      aborted = ec == boost::asio::error::operation_aborted;
    });
    boost::asio::post(executor->context(), [timer] { timer->cancel(); });
  }
  CHECK(aborted);
}
