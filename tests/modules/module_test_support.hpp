// Helpers for the module tests: temporary directories, a capture of the kernel log, sessions
// mounted from YAML with the real modules, and recorders for asynchronous calls.
#pragma once
#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier_sdk.hpp"
#include "kernel_calls.hpp"
#include "log_capture.hpp"
#include "temp_files.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace modtest {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

// Real temporary directories and files, shared by every test suite.
class TempDir : public amp_test::TempDir {
 public:
  TempDir() : amp_test::TempDir("amp-modtest") {}
};
using amp_test::write_file;

inline std::string read_text(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::vector<std::string> read_lines(const fs::path &path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

using amp_test::LogCapture;

// A session over the real modules (loaded from the build's module folder), initialised.
inline std::unique_ptr<amplifier::Session> open_session(const std::string &yaml) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  auto session = std::make_unique<amplifier::Session>(
      amplifier::parse_mount_plan(yaml, "test-plan"), options);
  session->initialize();
  return session;
}

// The plan every test starts from: the orchestrator and the context, plus `rest` (YAML of
// the providers/tools/hooks sections).
inline std::string plan_with(const std::string &rest) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\n" + rest;
}

// A JSON string's text (Boost.JSON values do not compare with std::string directly).
inline std::string text_of(const json::value &value) {
  return value.is_string() ? std::string(value.get_string()) : json::serialize(value);
}

// JSON text for YAML: JSON is YAML, so a config written as JSON needs no second syntax.
inline std::string yaml_json(const json::value &value) { return json::serialize(value); }

// Calls started directly through the coordinator, recorded (shared with other suites).
using amp_test::CallRecorder;
using amp_test::complete;
using amp_test::observe;
using amp_test::run_tool;

// What a tool call came to: its status and, when AMP_OK, the ToolResult with its success and
// its output as text.
struct ToolOutcome {
  amp_status status = AMP_OK;
  json::object result;
  bool success = false;
  std::string output;
  bool says(std::string_view text) const { return output.find(text) != std::string::npos; }
};

inline ToolOutcome tool_outcome(const std::shared_ptr<CallRecorder> &call,
                                std::chrono::milliseconds bound = std::chrono::seconds(60)) {
  REQUIRE_MESSAGE(call->wait_finished(bound), "the tool call did not finish");
  ToolOutcome outcome;
  outcome.status = call->status;
  outcome.result = call->result();
  if (outcome.status == AMP_OK) {
    outcome.success = outcome.result.at("success").as_bool();
    outcome.output = text_of(outcome.result.at("output"));
  }
  return outcome;
}

// {"messages":[{"role":"user","content":prompt}]} plus `tools` when given.
inline json::object user_request(std::string_view prompt, json::array tools = {}) {
  json::object request{{"messages", json::array{json::object{{"role", "user"}, {"content", prompt}}}}};
  if (!tools.empty()) request["tools"] = std::move(tools);
  return request;
}

inline json::object tool_spec(std::string_view name) {
  return {{"name", name},
          {"description", "test tool"},
          {"parameters", {{"type", "object"}, {"properties", json::object{}}}}};
}

}  // namespace modtest
