// The messages the kill test's child appends, generated from a seed so the parent can check
// every line that survived against what was written. A repeating turn: a prompt, a tool call,
// a large tool result (large lines widen the window in which SIGKILL lands inside a write),
// and an answer.
#pragma once
#include <boost/json.hpp>

#include <cstdint>
#include <random>
#include <string>

namespace ctxtest {

inline boost::json::object kill_test_message(std::uint32_t seed, std::uint64_t index) {
  namespace json = boost::json;
  std::mt19937 random(seed * 1000003u + static_cast<std::uint32_t>(index));
  const std::string n = std::to_string(index);
  switch (index % 4) {
    case 0:
      return json::object{{"role", "user"}, {"content", "prompt " + n}};
    case 1:
      return json::object{{"role", "assistant"},
                          {"content", json::array{json::object{{"type", "tool_call"},
                                                               {"id", "call_" + n},
                                                               {"name", "read_file"},
                                                               {"input", {{"path", n + ".txt"}}}}}}};
    case 2: {
      const std::size_t size = 1 + random() % (512 * 1024);
      const std::string id = "call_" + std::to_string(index - 1);
      std::string output(size, static_cast<char>('a' + index % 26));
      return json::object{{"role", "tool"},
                          {"tool_call_id", id},
                          {"content", json::array{json::object{{"type", "tool_result"},
                                                               {"tool_call_id", id},
                                                               {"output", std::move(output)}}}}};
    }
    default:
      return json::object{{"role", "assistant"},
                          {"content", json::array{json::object{{"type", "text"}, {"text", "answer " + n}}}}};
  }
}

}  // namespace ctxtest
