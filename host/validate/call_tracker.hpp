// Starts calls on the module under test through the kernel and records how each one ends.
#pragma once
#include "amplifier/coordinator.hpp"
#include "check_result.hpp"
#include "probe_kernel.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace amplifier::host::validate {

struct CallEnd {
  int finishes = 0;  // terminal events the caller saw (the kernel lets at most one through)
  amp_status status = AMP_ERROR;
  std::string payload;
  bool streamed = false;  // at least one event or delta came before the end
};

class CallTracker {
 public:
  // An observer recording into this tracker under `label`'s call (the id is learned from the
  // callbacks, so it may be used for calls that end before their start returns).
  CallObserver observer();
  // Waits until `count` calls have ended; false on timeout.
  bool wait_ended(std::size_t count, std::chrono::milliseconds timeout);
  // Waits until `call` streamed something or ended.
  void wait_started(amp_call_id call, std::chrono::milliseconds timeout);
  std::map<amp_call_id, CallEnd> ends() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<amp_call_id, CallEnd> ends_;
  std::size_t ended_ = 0;
};

// How calls are started on the module under test (provider complete, tool execute,
// orchestrator turn).
using CallStarter = std::function<amp_call_id(const std::string &input, CallObserver observer)>;

// Judges calls `ids` after the settle time: each must have ended exactly once, and the kernel
// must have seen no protocol violation. `what` names the calls in reasons ("the cancelled
// call"). Passes with `summary` when all is well.
CheckResult judge_calls(const std::string &check, const ProbeKernel &probe,
                        const CallTracker &tracker, const std::vector<amp_call_id> &ids,
                        const std::string &what, const std::string &summary);

// "ok" or "error internal: <message>" for a call's end, in one line.
std::string describe_end(const CallEnd &end);

// The error kind of a failed call's payload ("" when it has none).
std::string error_kind(const CallEnd &end);

}  // namespace amplifier::host::validate
