// Helpers for tests that run real sessions: plans from YAML, an event recorder, a kernel log
// recorder, and transcript checks.
#pragma once
#include "amplifier/hooks.hpp"
#include "amplifier/log.hpp"
#include "amplifier/session.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace amp_test {

using namespace std::chrono_literals;

// How long a test waits for something that should happen within milliseconds. Generous,
// because a loaded CI machine is slow; a test waits this long only when it is failing.
inline constexpr auto kPatience = 10s;

// A session over the test modules and the regular modules, from a YAML mount plan.
// Not initialised: register hooks first (EventLog), then call initialize().
std::unique_ptr<amplifier::Session> make_session(std::string_view plan_yaml);

// Records every event of a hook registry (a "*" handler) and lets a test wait for one.
class EventLog {
 public:
  struct Event {
    std::string name;
    boost::json::object data;
  };

  // Declare it after the session it observes: it unregisters itself when destroyed.
  explicit EventLog(amplifier::HookRegistry &hooks);
  ~EventLog();
  EventLog(const EventLog &) = delete;
  EventLog &operator=(const EventLog &) = delete;

  std::vector<Event> all() const;
  std::vector<std::string> names() const;
  std::vector<boost::json::object> payloads(std::string_view event) const;
  std::size_t count(std::string_view event) const;
  // Position of the first event named `event`, or -1.
  long index_of(std::string_view event) const;
  // Waits until an event satisfying `match` has been recorded (true) or `timeout` passes.
  bool wait_for(std::string_view event, std::chrono::milliseconds timeout,
                const std::function<bool(const boost::json::object &)> &match = {}) const;

 private:
  amplifier::HookRegistry &hooks_;
  amplifier::HookRegistry::HandlerId handler_ = 0;
  mutable std::mutex mutex_;
  mutable std::condition_variable recorded_;
  std::vector<Event> events_;
};

// Captures kernel log lines for its lifetime (restores the default sink afterwards).
class LogCapture {
 public:
  struct Line {
    amplifier::LogLevel level;
    std::string component;
    std::string message;
  };

  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;

  std::vector<Line> lines() const;
  // How many lines contain every one of `parts`.
  std::size_t count(std::initializer_list<std::string_view> parts) const;
  // Waits until `count(parts) >= n`.
  bool wait_for(std::initializer_list<std::string_view> parts, std::size_t n,
                std::chrono::milliseconds timeout) const;

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

// The context's stored messages (through the mounted context module's table).
boost::json::array transcript(amplifier::Session &session);

// Every problem that would make a provider reject `messages`: the model's structural checks
// plus a tool call without a result.
std::vector<std::string> transcript_problems(const boost::json::array &messages);

// The tool messages, in stored order.
std::vector<boost::json::object> tool_messages(const boost::json::array &messages);
// The output of the tool_result block of tool message `message` (null when absent).
boost::json::value tool_output(const boost::json::object &message);
// Whether that block is marked as an error.
bool tool_output_is_error(const boost::json::object &message);
// The roles of `messages`, in order.
std::vector<std::string> roles(const boost::json::array &messages);
// The serialised transcript, for messages of failed checks.
std::string dump(const boost::json::array &messages);

// What a tool call ended with.
struct ToolReply {
  amp_status status = AMP_ERROR;
  boost::json::value payload;
};

// Runs `tool` with `input_json` on the module that offers `owner_tool`, directly through the
// coordinator (no orchestrator), and waits for its terminal event. Throws on a timeout.
ToolReply call_tool_directly(amplifier::Session &session, std::string_view owner_tool,
                             std::string tool, std::string input_json);

// The string at `key` of `o` ("" when absent or not a string).
std::string string_at(const boost::json::object &o, std::string_view key);

}  // namespace amp_test
