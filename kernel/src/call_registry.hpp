// In-flight asynchronous calls of one coordinator, and the enforcement of the call protocol:
// events only before the terminal event, exactly one terminal event, valid JSON, reported by
// the module serving the call. A module that breaks the protocol is logged and ignored; it
// can never make the kernel touch freed memory (calls are looked up by id).
#pragma once
#include "amplifier/coordinator.hpp"

#include <boost/json/parse_options.hpp>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace amplifier {

struct CallRecord {
  amp_call_id id = 0;
  MountedModule *callee = nullptr;        // the instance serving the call (null: the kernel)
  const MountedModule *caller = nullptr;  // the instance that started it (null: the kernel)
  CallObserver observer;
  std::atomic<int> own_level{0};          // CancelLevel requested for this call alone
  std::recursive_mutex delivery;          // serialises events and the finish of this call
  bool finished = false;                  // guarded by `delivery`
  // A call the kernel serves (callee null): what cancel_call does. Guarded by `delivery`.
  std::function<void(CancelLevel)> kernel_cancel;
};

class CallRegistry {
 public:
  std::shared_ptr<CallRecord> create(MountedModule &callee, const MountedModule *caller,
                                     CallObserver observer);
  // A call the kernel serves itself (a child session's turn): no module reports on it; its
  // starter reports through kernel_event and finish_by_kernel.
  std::shared_ptr<CallRecord> create_kernel_served(const MountedModule *caller,
                                                   CallObserver observer);
  std::shared_ptr<CallRecord> find(amp_call_id id) const;
  // A stream event of a kernel-served call; ignored once it has finished.
  void kernel_event(const std::shared_ptr<CallRecord> &call, std::string_view event_json);

  // Entry points of amp_host_api.call_event / call_finish. `reporter` is the module instance
  // that made the callback.
  void report_event(const MountedModule *reporter, amp_call_id id, std::string_view event_json);
  // amp_host_api "call_delta": a typed delta (ABI 1.2), passed on typed when the observer
  // takes it, else rendered as its JSON event. An unknown kind ends the call (stream error).
  void report_delta(const MountedModule *reporter, amp_call_id id, std::uint32_t index,
                    amp_delta_kind kind, std::string_view text);
  void report_finish(const MountedModule *reporter, amp_call_id id, amp_status status,
                     std::string_view payload_json);

  // Ends a call on the kernel's behalf (the module could not be invoked, or was abandoned).
  // Does nothing when the call already finished.
  void finish_by_kernel(const std::shared_ptr<CallRecord> &call, amp_status status,
                        std::string payload_json);

  // A module's part in a call: the one serving it, or the one that started it.
  enum class Role { callee, caller };
  // The calls in flight (`module` null: all of them; else those it has `role` in).
  std::vector<std::shared_ptr<CallRecord>> in_flight(const MountedModule *module = nullptr,
                                                     Role role = Role::callee) const;
  // Waits until `module` has `role` in no call; false on timeout.
  bool wait_idle(const MountedModule *module, std::chrono::milliseconds timeout,
                 Role role = Role::callee);

 private:
  std::shared_ptr<CallRecord> add(MountedModule *callee, const MountedModule *caller,
                                  CallObserver observer);
  std::shared_ptr<CallRecord> live_call(const MountedModule *reporter, amp_call_id id,
                                        const char *what);
  void finish_locked(CallRecord &call, amp_status status, std::string_view payload_json);
  void forget(amp_call_id id);

  mutable std::mutex mutex_;
  std::condition_variable idle_;
  std::unordered_map<amp_call_id, std::shared_ptr<CallRecord>> calls_;
};

// Parse options for every JSON document the kernel reads from a module.
boost::json::parse_options kernel_parse_options();

// Validates JSON text without building a document (cheap enough for every stream event).
bool is_valid_json(std::string_view text);

// Turns a module's error payload into the kernel's error shape {"kind","message",...}.
std::string normalise_error_payload(amp_status status, std::string_view payload_json,
                                    std::string_view module_id);

std::string_view to_string(amp_status status);

}  // namespace amplifier
