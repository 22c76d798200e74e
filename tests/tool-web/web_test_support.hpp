// web_fetch mounted in a real Session, fetching from loopback servers.
#pragma once
#include "module_test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

namespace webtest {

using namespace modtest;
using amplifier::loopback::Framing;
using amplifier::loopback::LoopbackServer;
using amplifier::loopback::ScriptedResponse;

using Fetched = ToolOutcome;

// A session with tool-web and `config`; loopback servers need allow_private_addresses.
inline std::unique_ptr<amplifier::Session> web_session(const json::object &config) {
  return open_session(
      plan_with("tools:\n  - module: tool-web\n    config: " + yaml_json(config) + "\n"));
}

inline Fetched fetch(amplifier::Session &session, const json::object &input) {
  return tool_outcome(run_tool(session, "web_fetch", json::serialize(input)));
}

inline Fetched fetch(amplifier::Session &session, const std::string &url) {
  return fetch(session, json::object{{"url", url}});
}

inline ScriptedResponse page(std::string body, std::string type = "text/html; charset=utf-8") {
  ScriptedResponse response;
  response.headers = {{"Content-Type", std::move(type)}};
  response.body = std::move(body);
  response.framing = Framing::content_length;
  return response;
}

inline ScriptedResponse redirect(int status, std::string location) {
  ScriptedResponse response;
  response.status = status;
  response.headers = {{"Location", std::move(location)}, {"Content-Type", "text/html"}};
  response.body = "<p>moved</p>";
  response.framing = Framing::content_length;
  return response;
}

inline std::string port_of(const LoopbackServer &server) { return std::to_string(server.port()); }

}  // namespace webtest
