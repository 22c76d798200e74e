// Helpers for the module tests: temporary directories, a capture of the kernel log, sessions
// mounted from YAML with the real modules, and recorders for asynchronous calls.
#pragma once
#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier_sdk.hpp"

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

// A fresh directory under the system temp dir, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "amp-modtest-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = fs::canonical(pattern);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const fs::path &path() const { return path_; }
  fs::path operator/(std::string_view name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline void write_file(const fs::path &path, std::string_view content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

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

// Captures every kernel log line (module warnings arrive with the module id as component)
// while it lives; the default sink comes back afterwards.
class LogCapture {
 public:
  LogCapture() {
    amplifier::set_log_sink([this](amplifier::LogLevel level, std::string_view component,
                                   std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.push_back(std::string(amplifier::to_string(level)) + " [" + std::string(component) +
                       "] " + std::string(message));
    });
  }
  ~LogCapture() { amplifier::set_log_sink({}); }
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;

  std::vector<std::string> containing(std::string_view needle) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> found;
    for (const auto &line : lines_)
      if (line.find(needle) != std::string::npos) found.push_back(line);
    return found;
  }
  std::string all() const {
    std::lock_guard lock(mutex_);
    std::string text;
    for (const auto &line : lines_) text += line + "\n";
    return text;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

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

// Records the events and the terminal event of one call started through the coordinator.
struct CallRecorder {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> events;
  int finish_count = 0;
  amp_status status = AMP_OK;
  std::string payload;
  amp_call_id id = 0;

  bool wait_finished(std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return finish_count > 0; });
  }
  bool wait_events(std::size_t count, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout,
                            [&] { return events.size() >= count || finish_count > 0; });
  }
  std::vector<json::object> parsed_events() {
    std::lock_guard lock(mutex);
    std::vector<json::object> parsed;
    for (const auto &e : events) parsed.push_back(json::parse(e).as_object());
    return parsed;
  }
  json::object result() {
    std::lock_guard lock(mutex);
    return json::parse(payload).as_object();
  }
};

inline amplifier::CallObserver observe(const std::shared_ptr<CallRecorder> &recorder) {
  amplifier::CallObserver observer;
  observer.on_event = [recorder](amp_call_id, std::string_view event) {
    std::lock_guard lock(recorder->mutex);
    recorder->events.emplace_back(event);
    recorder->changed.notify_all();
  };
  observer.on_finish = [recorder](amp_call_id, amp_status status, std::string_view payload) {
    std::lock_guard lock(recorder->mutex);
    ++recorder->finish_count;
    recorder->status = status;
    recorder->payload.assign(payload);
    recorder->changed.notify_all();
  };
  return observer;
}

inline std::shared_ptr<CallRecorder> complete(amplifier::Session &session,
                                              std::string_view provider,
                                              const json::value &request) {
  auto *mounted = session.coordinator().provider(provider);
  REQUIRE_MESSAGE(mounted != nullptr, "provider not mounted: " << provider);
  auto recorder = std::make_shared<CallRecorder>();
  session.coordinator().start_provider_call(*mounted, json::serialize(request), observe(recorder),
                                            nullptr, &recorder->id);
  return recorder;
}

inline std::shared_ptr<CallRecorder> run_tool(amplifier::Session &session, std::string_view tool,
                                              std::string input_json) {
  auto *owner = session.coordinator().tool_owner(tool);
  REQUIRE_MESSAGE(owner != nullptr, "tool not mounted: " << tool);
  auto recorder = std::make_shared<CallRecorder>();
  session.coordinator().start_tool_call(*owner, std::string(tool), std::move(input_json),
                                        observe(recorder), nullptr, &recorder->id);
  return recorder;
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
