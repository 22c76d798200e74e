// The kernel's reading of a session_spawn request and the context a child starts with.
#include "amplifier/child_sessions.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <stdexcept>

using amplifier::SpawnRequest;
namespace json = boost::json;

TEST_CASE("a spawn request is read with its defaults, and a bad one is refused by field") {
  SpawnRequest r = amplifier::parse_spawn_request(R"({"instruction":"do it"})");
  CHECK(r.agent == "self");
  CHECK(r.context_depth == SpawnRequest::ContextDepth::none);
  CHECK(r.max_depth == 1);
  r = amplifier::parse_spawn_request(
      R"({"agent":"a","instruction":"x","context_depth":"recent","recent_turns":2,)"
      R"("session_id":"abc","exclude_tools":["t"],"max_depth":3})");
  CHECK(r.agent == "a");
  CHECK(r.context_depth == SpawnRequest::ContextDepth::recent);
  CHECK(r.recent_turns == 2);
  CHECK(r.resume_session_id == "abc");
  CHECK(r.exclude_tools == std::vector<std::string>{"t"});
  CHECK(r.max_depth == 3);

  auto refused = [](const char *json_text) -> std::string {
    try {
      amplifier::parse_spawn_request(json_text);
    } catch (const std::invalid_argument &e) {
      return e.what();
    }
    return "";
  };
  CHECK(refused("[]").find("not a JSON object") != std::string::npos);
  CHECK(refused(R"({"agent":"a"})").find("'instruction' is required") != std::string::npos);
  CHECK(refused(R"({"instruction":"  "})").find("empty") != std::string::npos);
  CHECK(refused(R"({"instruction":"x","context_depth":"most"})").find("context_depth") !=
        std::string::npos);
  CHECK(refused(R"({"instruction":"x","max_depth":99})").find("max_depth") != std::string::npos);
  CHECK(refused(R"({"instruction":"x","exclude_tools":"t"})").find("exclude_tools") !=
        std::string::npos);
}

namespace {
// A parent conversation: two finished turns, then a third whose assistant message calls
// delegate (still running, so it has no result yet).
const char *kParent = R"([
  {"role":"system","content":"parent rules"},
  {"role":"user","content":"first"},
  {"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"read","input":{}}]},
  {"role":"tool","tool_call_id":"c1","content":[{"type":"tool_result","tool_call_id":"c1","output":"x"}]},
  {"role":"assistant","content":"one"},
  {"role":"user","content":"second"},
  {"role":"assistant","content":"two"},
  {"role":"user","content":"third"},
  {"role":"assistant","content":[{"type":"text","text":"delegating"},
                                 {"type":"tool_call","id":"d1","name":"delegate","input":{}}]}
])";

std::vector<std::string> texts(const std::string &messages_json) {
  std::vector<std::string> out;
  const json::value parsed = json::parse(messages_json);
  for (const auto &m : parsed.as_array()) {
    const auto &content = m.at("content");
    out.push_back(std::string(m.at("role").as_string()) + ":" +
                  (content.is_string() ? std::string(content.as_string()) : "[blocks]"));
  }
  return out;
}

SpawnRequest request(const char *agent, SpawnRequest::ContextDepth depth, int turns = 3) {
  SpawnRequest r;
  r.agent = agent;
  r.instruction = "task";
  r.context_depth = depth;
  r.recent_turns = turns;
  return r;
}
}  // namespace

TEST_CASE("a child starts with its instructions and the part of the parent's conversation asked") {
  using D = SpawnRequest::ContextDepth;
  CHECK(texts(amplifier::child_initial_messages(kParent, request("helper", D::none), "be brief")) ==
        std::vector<std::string>{"system:be brief"});
  CHECK(amplifier::child_initial_messages(kParent, request("self", D::none), "") == "[]");
  // all: every finished message; the running delegate call is cut; the agent's own
  // instructions replace the parent's.
  CHECK(texts(amplifier::child_initial_messages(kParent, request("helper", D::all), "be brief")) ==
        std::vector<std::string>{"system:be brief", "user:first", "assistant:[blocks]",
                                 "tool:[blocks]", "assistant:one", "user:second", "assistant:two",
                                 "user:third"});
  // recent, 1 turn: from the last user message on.
  CHECK(texts(amplifier::child_initial_messages(kParent, request("helper", D::recent, 1), "")) ==
        std::vector<std::string>{"user:third"});
  CHECK(texts(amplifier::child_initial_messages(kParent, request("helper", D::recent, 2), "")) ==
        std::vector<std::string>{"user:second", "assistant:two", "user:third"});
  // self keeps the parent's own instructions, whatever the depth.
  CHECK(texts(amplifier::child_initial_messages(kParent, request("self", D::recent, 1), "")) ==
        std::vector<std::string>{"system:parent rules", "user:third"});
  CHECK_THROWS(amplifier::child_initial_messages("{}", request("self", D::all), ""));
}
