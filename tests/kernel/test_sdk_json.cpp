// The SDK's JSON text helpers write exactly what Boost.JSON's serializer writes: the host
// renders typed deltas with them, and a hook must not be able to tell which path ran.
#include "amplifier_sdk_json.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <random>
#include <string>

namespace json = boost::json;

TEST_CASE("quoting matches Boost.JSON for every byte value and for UTF-8") {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  CHECK(amp::sdk::json::quoted(all) == json::serialize(json::string(all)));
  const std::string utf8 = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \"q\" \\ /";
  CHECK(amp::sdk::json::quoted(utf8) == json::serialize(json::string(utf8)));
  CHECK(amp::sdk::json::quoted("") == "\"\"");
}

TEST_CASE("quoting matches Boost.JSON on random strings") {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> byte(0, 255), length(0, 64);
  for (int i = 0; i < 2000; ++i) {
    std::string text(static_cast<std::size_t>(length(random)), '\0');
    for (char &c : text) c = static_cast<char>(byte(random));
    REQUIRE(amp::sdk::json::quoted(text) == json::serialize(json::string(text)));
  }
}

TEST_CASE("a typed delta's JSON forms are the documented events, as Boost writes them") {
  const std::string text = "a \"b\"\n\xc3\xa9";
  std::string event;
  amp::sdk::json::append_delta_event(event, 3, AMP_DELTA_THINKING, text);
  json::object expected{{"type", "content_block_delta"},
                        {"index", 3},
                        {"delta", {{"type", "thinking"}, {"thinking", text}}}};
  CHECK(event == json::serialize(expected));

  std::string hook_data;
  amp::sdk::json::append_delta_hook_data(hook_data, 2, AMP_DELTA_TEXT, text);
  CHECK(hook_data == json::serialize(json::object{{"block_index", 2},
                                                  {"delta", {{"type", "text"}, {"text", text}}}}));
  hook_data.clear();
  amp::sdk::json::append_delta_hook_data(hook_data, 1, AMP_DELTA_TOOL_INPUT, R"({"pa)");
  CHECK(hook_data == json::serialize(json::object{{"block_index", 1}, {"partial_json", R"({"pa)"}}));
  hook_data.clear();
  amp::sdk::json::append_delta_hook_data(hook_data, 0, AMP_DELTA_REDACTED_THINKING, "opaque");
  CHECK(hook_data == R"({"block_index":0,"delta":{"type":"redacted_thinking","data":"opaque"}})");
  CHECK_FALSE(amp::sdk::json::is_known_delta(static_cast<amp_delta_kind>(0)));
  CHECK_FALSE(amp::sdk::json::is_known_delta(static_cast<amp_delta_kind>(6)));
}
