// Helpers for the provider tests: the recorded vendor fixtures (tests/fixtures/vendor, read
// byte for byte), ChatRequests written as JSON, sessions on the real modules, and recorders of
// kernel log lines and events.
#pragma once
#include "amplifier/coordinator.hpp"
#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier/model.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "log_capture.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amp_test {

namespace json = boost::json;
namespace fs = std::filesystem;

inline std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A recorded vendor fixture, byte for byte.
inline std::string fixture(std::string_view name) {
  return read_file(fs::path(AMP_VENDOR_FIXTURE_DIR) / name);
}

inline json::object fixture_json(std::string_view name) {
  return json::parse(fixture(name)).as_object();
}

// Every fixture in tests/fixtures/vendor whose name starts with `prefix` and ends with
// `extension`, sorted by name.
inline std::vector<std::string> fixtures_with(std::string_view prefix, std::string_view extension) {
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(fs::path(AMP_VENDOR_FIXTURE_DIR))) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == extension)
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A recorded {status_code, headers, body} error as the server's response.
inline amplifier::loopback::ScriptedResponse recorded_error(std::string_view name) {
  const json::object recorded = fixture_json(name);
  amplifier::loopback::HeaderList headers;
  for (const auto &field : recorded.at("headers").as_object()) {
    const std::string key(field.key());
    if (key == "content-length" || key == "connection")
      continue;  // the server frames the body itself
    headers.emplace_back(key, std::string(field.value().as_string()));
  }
  return amplifier::loopback::ScriptedResponse::json(
      static_cast<int>(recorded.at("status_code").as_int64()), json::serialize(recorded.at("body")),
      headers);
}

// The `data:` payloads of an SSE fixture, in order (for expectations, not for parsing tests).
inline std::vector<json::object> sse_payloads(const std::string &sse) {
  std::vector<json::object> payloads;
  std::istringstream in(sse);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("data:", 0) == 0) payloads.push_back(json::parse(line.substr(5)).as_object());
  }
  return payloads;
}

inline amplifier::ChatRequest chat_request(std::string_view json_text) {
  return amplifier::from_json<amplifier::ChatRequest>(json::parse(json_text));
}

// Every kernel event emitted in a session, in order, with its payload.
class EventRecorder {
 public:
  struct Event {
    std::string name;
    json::object data;
  };

  explicit EventRecorder(amplifier::HookRegistry &hooks) : hooks_(hooks) {
    handler_ = hooks.register_handler(std::string(amplifier::HookRegistry::kAllEvents),
                                      [this](std::string_view event, const json::object &data) {
                                        std::lock_guard lock(mutex_);
                                        events_.push_back(Event{std::string(event), data});
                                        changed_.notify_all();
                                        return amplifier::HookResult{};
                                      });
  }
  // The session may outlive the recorder (and still emit session:end).
  ~EventRecorder() { hooks_.unregister(handler_); }
  EventRecorder(const EventRecorder &) = delete;
  EventRecorder &operator=(const EventRecorder &) = delete;

  std::vector<Event> named(std::string_view name) const {
    std::lock_guard lock(mutex_);
    std::vector<Event> found;
    for (const auto &event : events_)
      if (event.name == name) found.push_back(event);
    return found;
  }
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto &event : events_) out.push_back(event.name);
    return out;
  }
  // Blocks until an event called `name` was recorded (condition variable, no polling).
  bool wait_for(std::string_view name,
                std::chrono::milliseconds timeout = std::chrono::seconds(10)) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      for (const auto &event : events_)
        if (event.name == name) return true;
      return false;
    });
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<Event> events_;
  amplifier::HookRegistry &hooks_;
  amplifier::HookRegistry::HandlerId handler_ = 0;
};

inline std::unique_ptr<amplifier::Session> open_session(const std::string &yaml) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  auto session =
      std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(yaml, "test-plan"), options);
  session->initialize();
  return session;
}

}  // namespace amp_test
