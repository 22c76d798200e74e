// One session's spans, built from its kernel events, with the OpenTelemetry GenAI semantic
// conventions:
//   session           "session"              the whole session (amplifier.session.id)
//   └ turn            "invoke_agent NAME"    execution:start .. prompt:complete
//     ├ LLM call      "chat MODEL"           provider:request .. provider:response / :error
//     └ tool call     "execute_tool NAME"    tool:pre .. tool:post / tool:error
//       └ (delegate)  the child session's spans, in the same trace
// A child session (delegate) joins its parent's trace: both sessions' trackers live in this
// module library, which keeps a registry of the running sessions' trace ids, turn spans and
// delegate calls; the parent's delegate:agent_spawned says which call started which child.
// (A module behind isolation: process has no such registry: its child starts a trace of its
// own, linked only by amplifier.session.parent_id.)
//
// Prompts, answers, tool arguments and results are left out unless capture_content.
//
// Threads: on_event from any thread, concurrently (parallel tools); a mutex keeps the state.
#pragma once
#include "otlp_json.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace hooks_otel {

struct TraceLink;  // a session's entry in the registry (span_tracker.cpp)

struct TrackerOptions {
  bool capture_content = false;
  std::size_t max_content_chars = 16384;  // per captured attribute
};

class SpanTracker {
 public:
  // `finished` receives each span as it ends (the exporter's add).
  SpanTracker(std::string session_id, std::string parent_id, TrackerOptions options,
              std::function<void(Span)> finished);
  ~SpanTracker();  // ends what is still open (a session torn down without session:end)
  SpanTracker(const SpanTracker &) = delete;
  SpanTracker &operator=(const SpanTracker &) = delete;

  void on_event(std::string_view event, const boost::json::object &data);

  // The events on_event understands (the module registers for these).
  static const std::vector<std::string_view> &events();

 private:
  void start_turn(const boost::json::object &data);
  void end_turn(const boost::json::object &data);
  void start_llm(const boost::json::object &data);
  void price_llm(const boost::json::object &data);
  void end_llm(const boost::json::object &data, std::string_view event);
  void start_tool(const boost::json::object &data);
  void end_tool(const boost::json::object &data, bool failed);
  void child_started(const boost::json::object &data);
  void end_session();
  void abandon_open_calls();

  Span child_span(const Span &parent, std::string name, SpanKind kind) const;
  void finish(Span &span);  // stamps the end time, hands it over
  std::string captured(std::string text) const;

  const std::string session_id_;
  const std::string parent_id_;
  const TrackerOptions options_;
  const std::function<void(Span)> finished_;
  std::shared_ptr<TraceLink> link_;
  std::shared_ptr<TraceLink> parent_link_;  // while the parent runs (same library)
  std::optional<SpanId> parent_fallback_;   // the parent's turn when this session started

  std::mutex mutex_;
  std::optional<Span> session_;
  std::optional<Span> turn_;
  std::optional<Span> llm_;
  std::multimap<std::string, Span> tools_;  // by tool_call_id; equal ids in start order
};

}  // namespace hooks_otel
