// Starting provider and tool calls directly through a session's coordinator, and recording
// their stream events and their one terminal event.
#pragma once
#include "amplifier/coordinator.hpp"
#include "amplifier/session.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace amp_test {

struct CallRecorder {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> events;
  int finish_count = 0;
  amp_status status = AMP_OK;
  std::string payload;
  amp_call_id id = 0;

  bool wait_finished(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return finish_count > 0; });
  }
  bool wait_events(std::size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout,
                            [&] { return events.size() >= count || finish_count > 0; });
  }
  std::vector<boost::json::object> parsed_events() {
    std::lock_guard lock(mutex);
    std::vector<boost::json::object> parsed;
    for (const auto &e : events) parsed.push_back(boost::json::parse(e).as_object());
    return parsed;
  }
  boost::json::object result() {
    std::lock_guard lock(mutex);
    return boost::json::parse(payload).as_object();
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
                                              const boost::json::value &request) {
  auto *mounted = session.coordinator().provider(provider);
  REQUIRE_MESSAGE(mounted != nullptr, "provider not mounted: " << provider);
  auto recorder = std::make_shared<CallRecorder>();
  session.coordinator().start_provider_call(*mounted, boost::json::serialize(request),
                                            observe(recorder), nullptr, &recorder->id);
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

}  // namespace amp_test
