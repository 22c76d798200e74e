// Delivers planned calls through the host: stream events paced by steady_timers on the
// library's shared background executor, then exactly one terminal event. No thread per call:
// every call is a small state object and a timer, so one instance carries thousands of calls.
//
// THREADS: start() and cancel() may be called from any thread, concurrently. Everything that
// reports to the host (call_event, call_finish) and every timer operation happens on the
// executor thread, one handler at a time. That single thread is what makes "exactly one
// terminal event" simple: the natural end, an explicit cancel and a shutdown all decide on
// the same thread, and the first one marks the call finished.
#pragma once
#include "response_planner.hpp"

#include "amplifier/module_support/background_executor.hpp"
#include "amplifier_sdk.hpp"

#include <chrono>
#include <memory>
#include <string>

namespace provider_mock {

class CallStreamer {
 public:
  // `cancelled_payload` is the error JSON a cancelled call ends with.
  CallStreamer(amp::sdk::Host host, std::chrono::milliseconds delta_delay,
               std::string cancelled_payload);
  // Ends every outstanding call with a terminal AMP_CANCELLED event (the host context is still
  // valid while the module's destroy runs), waits until that has happened on the executor,
  // then lets go of the executor (the last owner joins its thread). No timer of this instance
  // reaches the host afterwards.
  ~CallStreamer();
  CallStreamer(const CallStreamer &) = delete;
  CallStreamer &operator=(const CallStreamer &) = delete;

  // Registers the call and returns at once; delivery starts on the executor.
  void start(amp_call_id call, PlannedCall plan);
  // Records the requested level. An immediate cancel wakes the call so it ends at once with
  // AMP_CANCELLED; a graceful one lets the running completion finish (graceful means "finish
  // the running work, start nothing new"). Unknown or finished calls are ignored.
  void cancel(amp_call_id call, amp_cancel_level level);
  // Calls started and not yet finished.
  std::size_t in_flight() const;

 private:
  struct ActiveCall;
  class CallTable;
  using CallPtr = std::shared_ptr<ActiveCall>;
  using TablePtr = std::shared_ptr<CallTable>;

  // The whole life of a call, run on the executor after every wake-up (start, timer expiry,
  // cancel). Static and given shared state only: a late handler never touches `this`.
  static void advance(const CallPtr &call, const TablePtr &table);
  static void wait_until(const CallPtr &call, const TablePtr &table,
                         std::chrono::steady_clock::time_point when);
  static void finish(const CallPtr &call, const TablePtr &table, amp_status status,
                     const std::string &payload);
  static amp_cancel_level effective_cancel_level(const ActiveCall &call);
  void finish_all_outstanding();

  amp::sdk::Host host_;
  std::chrono::milliseconds delta_delay_;
  std::shared_ptr<const std::string> cancelled_payload_;
  std::shared_ptr<amplifier::module_support::BackgroundExecutor> executor_;
  TablePtr table_;
};

}  // namespace provider_mock
