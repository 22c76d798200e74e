// Helpers for the context tests: scratch directories, transcripts written by hand, sessions
// over the real modules, direct calls into the mounted context, and an event recorder.
#pragma once
#include "amplifier/coordinator.hpp"
#include "amplifier/hooks.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier_sdk.hpp"
#include "temp_files.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ctxtest {

namespace fs = std::filesystem;
namespace json = boost::json;

// Real temporary directories and files, shared by every test suite.
class TempDir : public amp_test::TempDir {
 public:
  TempDir() : amp_test::TempDir("amp-ctxtest") {}
};
using amp_test::write_file;

inline std::string read_text(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// JSON lines joined with '\n' and ended by one.
inline std::string jsonl(const std::vector<std::string> &lines) {
  std::string text;
  for (const auto &line : lines) text += line + "\n";
  return text;
}

// The plan of a session with context-persistent on `store`, plus `rest` (YAML of providers,
// tools, hooks). `context_config` is extra JSON config keys, e.g. R"("max_tokens": 500)".
inline std::string persistent_plan(const fs::path &store, const std::string &rest = "",
                                   const std::string &context_config = "") {
  std::string config = "{\"store_dir\": " + json::serialize(json::value(store.string())) +
                       ", \"fsync\": false" + (context_config.empty() ? "" : ", " + context_config) + "}";
  return "session:\n  orchestrator: loop-basic\n  context:\n    module: context-persistent\n"
         "    config: " + config + "\n" + rest;
}

inline std::string mock_provider(const std::string &config = "{}") {
  return "providers:\n  - module: provider-mock\n    config: " + config + "\n";
}

// Records every event of a session (a "*" handler), thread-safe.
class EventLog {
 public:
  explicit EventLog(amplifier::HookRegistry &hooks) : hooks_(hooks) {
    id_ = hooks_.register_handler(
        std::string(amplifier::HookRegistry::kAllEvents),
        [this](std::string_view event, const json::object &data) {
          std::lock_guard lock(mutex_);
          events_.push_back({std::string(event), data});
          return amplifier::HookResult{};
        },
        0, "ctxtest-event-log");
  }
  ~EventLog() { hooks_.unregister(id_); }
  EventLog(const EventLog &) = delete;
  EventLog &operator=(const EventLog &) = delete;

  std::vector<json::object> payloads(std::string_view event) const {
    std::lock_guard lock(mutex_);
    std::vector<json::object> found;
    for (const auto &[name, data] : events_)
      if (name == event) found.push_back(data);
    return found;
  }
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto &e : events_) out.push_back(e.first);
    return out;
  }

 private:
  amplifier::HookRegistry &hooks_;
  amplifier::HookRegistry::HandlerId id_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, json::object>> events_;
};

// A session over the real modules, from YAML, with a fixed id (so a second session with the
// same id resumes the first) and an event log attached before initialisation.
struct OpenSession {
  std::unique_ptr<amplifier::Session> session;
  std::unique_ptr<EventLog> events;
};

inline OpenSession open_session(const std::string &yaml, const std::string &session_id,
                                bool resumed = false) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.session_id = session_id;
  options.resumed = resumed;
  OpenSession open;
  open.session = std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(yaml, "test-plan"),
                                                      options);
  open.events = std::make_unique<EventLog>(open.session->hooks());
  open.session->initialize();
  return open;
}

// The mounted context module, called through its table as the host would.
class ContextHandle {
 public:
  explicit ContextHandle(amplifier::Session &session) : m_(*session.coordinator().context()) {}

  amp_status add(std::string_view message_json) {
    return table()->add_message(m_.instance, amp::sdk::to_amp(message_json));
  }
  void add_ok(const json::value &message) { REQUIRE(add(json::serialize(message)) == AMP_OK); }
  json::array messages() {
    amp::sdk::StringWriter out;
    REQUIRE(table()->get_messages(m_.instance, &out) == AMP_OK);
    return json::parse(out.text).as_array();
  }
  json::array for_request(std::string_view hints) {
    amp::sdk::StringWriter out;
    REQUIRE(table()->get_messages_for_request(m_.instance, amp::sdk::to_amp(hints), &out) == AMP_OK);
    return json::parse(out.text).as_array();
  }
  amp_status set(std::string_view messages_json) {
    return table()->set_messages(m_.instance, amp::sdk::to_amp(messages_json));
  }

 private:
  const amp_context_vtable *table() { return m_.table<amp_context_vtable>(); }
  amplifier::MountedModule &m_;
};

inline std::vector<std::string> roles(const json::array &messages) {
  std::vector<std::string> out;
  for (const auto &m : messages) out.emplace_back(m.at("role").as_string());
  return out;
}

// Providers reject these; a resumed conversation must never contain them.
inline void check_alternation(const json::array &messages) {
  std::string previous;
  for (const auto &m : messages) {
    const std::string role(m.at("role").as_string());
    if (role == "system") continue;
    CHECK_MESSAGE(!(role == "user" && (previous == "user" || previous == "tool")),
                  "a user message follows a " << previous << " message");
    previous = role;
  }
}

inline json::object text_message(std::string_view role, std::string_view text) {
  return json::object{{"role", role}, {"content", text}};
}

inline json::object tool_call_message(std::string_view id, std::string_view name,
                                      std::string_view text = "") {
  json::array blocks;
  if (!text.empty()) blocks.push_back(json::object{{"type", "text"}, {"text", text}});
  blocks.push_back(json::object{{"type", "tool_call"}, {"id", id}, {"name", name}, {"input", json::object{}}});
  return json::object{{"role", "assistant"}, {"content", std::move(blocks)}};
}

inline json::object tool_result_message(std::string_view id, std::string_view output) {
  return json::object{
      {"role", "tool"},
      {"tool_call_id", id},
      {"content", json::array{json::object{{"type", "tool_result"}, {"tool_call_id", id}, {"output", output}}}}};
}

}  // namespace ctxtest
