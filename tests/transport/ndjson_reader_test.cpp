#include "test_support.hpp"

#include <boost/json/parse.hpp>

namespace amplifier::transport {
namespace {

std::vector<std::string> read_lines(std::string_view stream, std::size_t chunk_size) {
  std::vector<std::string> lines;
  NdjsonReader reader([&](std::string_view line) { lines.emplace_back(line); });
  for (std::size_t at = 0; at < stream.size(); at += chunk_size) reader.feed(stream.substr(at, chunk_size));
  reader.finish();
  return lines;
}

TEST_CASE("ndjson: lines split across chunks, CRLF tolerated, blank lines skipped") {
  const std::string stream = "{\"a\":1}\r\n\n  \r\n{\"b\":2}\n\n{\"c\":3}";
  for (std::size_t chunk = 1; chunk <= 8; ++chunk) {
    CAPTURE(chunk);
    CHECK(read_lines(stream, chunk) == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"});
  }
}

TEST_CASE("ndjson: finish delivers a final line without newline, once") {
  std::vector<std::string> lines;
  NdjsonReader reader([&](std::string_view line) { lines.emplace_back(line); });
  reader.feed("{\"done\":false}\n{\"done\":");
  CHECK(lines.size() == 1);
  reader.feed("true}");
  CHECK(reader.finish());
  CHECK_FALSE(reader.finish());
  CHECK(lines == std::vector<std::string>{"{\"done\":false}", "{\"done\":true}"});
  reader.feed("\r\n");
  CHECK_FALSE(reader.finish());
  CHECK(lines.size() == 2);
}

TEST_CASE("ndjson: every recorded NDJSON fixture yields one JSON object per line at any chunking") {
  const auto fixtures = testing::vendor_fixtures(".ndjson");
  REQUIRE(fixtures.size() >= 5);
  for (const auto &path : fixtures) {
    CAPTURE(path.filename().string());
    const std::string stream = testing::read_file(path);
    const auto whole = read_lines(stream, stream.size() + 1);
    REQUIRE(!whole.empty());
    for (const auto &line : whole) CHECK(boost::json::parse(line).is_object());
    for (std::size_t chunk = 1; chunk <= 16; ++chunk) CHECK(read_lines(stream, chunk) == whole);
  }
}

TEST_CASE("ndjson: the Ollama mid-stream error arrives as the last line") {
  const auto lines = read_lines(
      testing::read_file(testing::vendor_fixture_dir() / "ollama_generate_stream_midstream_error_docs.ndjson"), 3);
  REQUIRE(!lines.empty());
  CHECK(boost::json::parse(lines.back()).as_object().contains("error"));
}

}  // namespace
}  // namespace amplifier::transport
