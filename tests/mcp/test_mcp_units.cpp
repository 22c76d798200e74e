// The parts of tool-mcp that need no server: tool names and the mapping of tools/call results.
#include "result_mapping.hpp"
#include "tool_naming.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace tool_mcp;

namespace {

json::object mapped(const json::object &result, std::size_t max_chars = 50'000) {
  return json::parse(map_call_result(result, {"srv", "tool", max_chars})).as_object();
}

}  // namespace

TEST_CASE("tool names: mcp_<server>_<tool>, API-safe, capped and distinct") {
  CHECK(exposed_tool_name("everything", "get-sum") == "mcp_everything_get-sum");
  CHECK(exposed_tool_name("my server", "do.thing/now") == "mcp_my_server_do_thing_now");
  const std::string long_a = exposed_tool_name("server", std::string(80, 'a') + "1");
  const std::string long_b = exposed_tool_name("server", std::string(80, 'a') + "2");
  CHECK(long_a.size() == 64);
  CHECK(long_a != long_b);
  CHECK(long_a == exposed_tool_name("server", std::string(80, 'a') + "1"));  // stable
  std::set<std::string> taken;
  const std::string first = unique_tool_name(exposed_tool_name("s", "a.b"), "s/a.b", taken);
  const std::string second = unique_tool_name(exposed_tool_name("s", "a_b"), "s/a_b", taken);
  CHECK(first == "mcp_s_a_b");
  CHECK(second != first);
  CHECK(second.starts_with("mcp_s_a_b_"));
}

TEST_CASE("results: text, blocks kept without loss, isError, structured content") {
  json::object text =
      mapped({{"content", json::array{json::object{{"type", "text"}, {"text", "a"}},
                                      json::object{{"type", "text"}, {"text", "b"}}}}});
  CHECK(text.at("success") == true);
  CHECK(text.at("output") == "a\nb");

  const json::object resource{
      {"type", "resource"},
      {"resource", {{"uri", "file:///x"}, {"mimeType", "text/plain"}, {"text", "body"}}}};
  const json::object link{{"type", "resource_link"}, {"uri", "file:///y"}, {"name", "y"}};
  json::object blocks = mapped(
      {{"content",
        json::array{json::object{{"type", "text"}, {"text", "see"}},
                    json::object{{"type", "image"}, {"data", "AAAA"}, {"mimeType", "image/png"}},
                    resource, link}}});
  const json::array &output = blocks.at("output").as_array();
  REQUIRE(output.size() == 4);
  CHECK(output[0] == json::object{{"type", "text"}, {"text", "see"}});
  CHECK(output[1] ==
        json::object{
            {"type", "image"},
            {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", "AAAA"}}}});
  CHECK(output[2] == resource);
  CHECK(output[3] == link);

  json::object error =
      mapped({{"isError", true},
              {"content", json::array{json::object{{"type", "text"}, {"text", "bad"}}}}});
  CHECK(error.at("success") == false);
  CHECK(error.at("error").at("message") == "bad");

  json::object structured = mapped({{"content", json::array{}}, {"structuredContent", {{"n", 1}}}});
  CHECK(structured.at("output") == R"({"n":1})");
  CHECK(structured.at("structured_content") == json::object{{"n", 1}});
}

TEST_CASE("results: the text cap counts characters, never splits UTF-8, and says so") {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "é";
  json::object result =
      mapped({{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}}, 100);
  const std::string output(result.at("output").as_string());
  CHECK(output.starts_with(text.substr(0, 200)));
  CHECK(output.find("[output cut: 100 of 300 characters shown (tool-mcp max_output_chars)]") !=
        std::string::npos);
  CHECK(result.at("truncated") == true);
  CHECK(json::parse(json::serialize(result)).is_object());  // valid UTF-8 throughout
}
