// JsonFieldReader: the declared fields of a document, decoded exactly as Boost.JSON decodes
// them, whatever the key order, whitespace or nesting around them; invalid JSON rejected as the
// full parser rejects it.
#include "amplifier/json_fields.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <random>

using amplifier::JsonFieldReader;
namespace json = boost::json;

TEST_CASE("declared fields are captured at their paths, in any order and with any padding") {
  JsonFieldReader reader;
  const auto type = reader.declare({"type"});
  const auto index = reader.declare({"index"});
  const auto delta_type = reader.declare({"delta", "type"});
  const auto text = reader.declare({"delta", "text"});
  const auto missing = reader.declare({"delta", "thinking"});

  REQUIRE(reader.read(R"({"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Hi"}}     )"));
  CHECK(reader.string(type) == "content_block_delta");
  CHECK(reader.integer(index) == 3);
  CHECK(reader.string(delta_type) == "text_delta");
  CHECK(reader.string(text) == "Hi");
  CHECK_FALSE(reader.has(missing));

  // Reordered, nested decoys with the same key names, arrays in between.
  REQUIRE(reader.read(R"( { "delta" : { "extra": {"text": "no"}, "list": [{"text":"no"}], "text" : "yes" },
                           "other": {"type": "decoy"}, "type" : "t", "index": 1 } )"));
  CHECK(reader.string(text) == "yes");
  CHECK(reader.string(type) == "t");
  CHECK_FALSE(reader.has(delta_type));
  CHECK(reader.integer(index) == 1);
}

TEST_CASE("booleans are captured with their value; other kinds are no boolean") {
  JsonFieldReader reader;
  const auto done = reader.declare({"done"});
  const auto flag = reader.declare({"m", "flag"});
  REQUIRE(reader.read(R"({"done":true,"m":{"flag":false}})"));
  CHECK(reader.boolean(done) == true);
  CHECK(reader.boolean(flag) == false);
  REQUIRE(reader.read(R"({"done":1,"m":{"flag":null}})"));
  CHECK_FALSE(reader.boolean(done).has_value());
  CHECK_FALSE(reader.boolean(flag).has_value());
  CHECK(reader.integer(done) == 1);
}

TEST_CASE("strings are decoded exactly as Boost.JSON decodes them") {
  JsonFieldReader reader;
  const auto text = reader.declare({"d", "text"});
  for (std::string value : {std::string("plain"), std::string("line\nbreak \"q\" \\ / \t"),
                            std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
                            std::string(5000, 'x') + "\x01"}) {
    const std::string document = json::serialize(json::object{{"d", {{"text", value}}}});
    REQUIRE(reader.read(document));
    CHECK(reader.string(text) == value);
  }
  REQUIRE(reader.read(R"({"d":{"text":"\u00e9\ud83d\ude00\/"}})"));
  CHECK(reader.string(text) == "\xc3\xa9\xf0\x9f\x98\x80/");
}

TEST_CASE("kinds of other values are reported, containers as present") {
  JsonFieldReader reader;
  const auto number = reader.declare({"n"});
  const auto big = reader.declare({"big"});
  const auto flag = reader.declare({"b"});
  const auto nothing = reader.declare({"z"});
  const auto object = reader.declare({"o"});
  const auto array = reader.declare({"a"});
  REQUIRE(reader.read(R"({"n":1.5,"big":18446744073709551615,"b":true,"z":null,"o":{"x":1},"a":[1]})"));
  CHECK(reader.kind(number) == JsonFieldReader::Kind::number);
  CHECK(reader.kind(big) == JsonFieldReader::Kind::number);
  CHECK(reader.kind(flag) == JsonFieldReader::Kind::boolean);
  CHECK(reader.kind(nothing) == JsonFieldReader::Kind::null);
  CHECK(reader.kind(object) == JsonFieldReader::Kind::object);
  CHECK(reader.kind(array) == JsonFieldReader::Kind::array);
  CHECK_FALSE(reader.integer(number));
}

TEST_CASE("invalid JSON is rejected as the full parser rejects it, and captures nothing") {
  JsonFieldReader reader;
  const auto type = reader.declare({"type"});
  // Faults in fields nobody declared count too: the whole text is validated.
  for (std::string bad : {R"({"type":"x")", R"({"type":"x"} extra)", R"({"type":"x",})",
                          "{\"type\":\"\xff\"}", R"({"type":"\ud800"})", "", "  ",
                          R"({"type":"x","other":tru})", R"({"type":"x","other":01})",
                          R"({"type":"x","other":1.})", "{\"type\":\"x\",\"other\":\"\x01\"}",
                          R"({"type":"x","other":[1,]})", R"({"type":"x","o":{"n":nul}})",
                          R"({"type":"x","o":{"s":"\q"}})", R"({"type":"x"}{})"}) {
    CHECK_FALSE_MESSAGE(reader.read(bad), bad);
    CHECK_FALSE(reader.has(type));
    CHECK_FALSE(reader.error().empty());
  }
  CHECK(reader.read(R"("just a string")"));
  CHECK_FALSE(reader.has(type));
}

TEST_CASE("the reader agrees with a DOM on random documents") {
  std::mt19937 random(11);
  JsonFieldReader reader;
  const auto a = reader.declare({"a"});
  const auto b = reader.declare({"x", "b"});
  auto random_text = [&] {
    std::string text(random() % 12, ' ');
    for (char &c : text) c = static_cast<char>(random() % 94 + 32);
    return text;
  };
  for (int i = 0; i < 500; ++i) {
    json::object inner{{"b", random_text()}, {"noise", random_text()}};
    json::object document{{"noise", json::array{random_text()}}, {"x", inner}};
    if (random() % 2) document["a"] = random_text();
    const std::string text = json::serialize(document);
    REQUIRE(reader.read(text));
    CHECK(reader.has(a) == document.contains("a"));
    if (document.contains("a")) CHECK(reader.string(a) == document.at("a").as_string());
    CHECK(reader.string(b) == document.at("x").at("b").as_string());
  }
}
