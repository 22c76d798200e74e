#include "call_registry.hpp"

#include "amplifier_sdk_json.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/log.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <atomic>

namespace amplifier {
namespace {

constexpr std::string_view kCallsLog = "calls";

// Process-wide so an id is never reused, even across sessions.
std::atomic<amp_call_id> next_call_id{1};

void violation(const MountedModule *reporter, const std::string &what) {
  log(LogLevel::Warning, kCallsLog,
      fmt::format("protocol violation by module '{}': {}",
                  reporter ? std::string(reporter->id()) : std::string("?"), what));
}

}  // namespace

boost::json::parse_options kernel_parse_options() {
  boost::json::parse_options options;
  options.max_depth = 256;  // Boost's default (32) rejects legitimately nested tool inputs
  return options;
}

bool is_valid_json(std::string_view text) {
  // A reader with no fields only validates: one pass, no document, nothing allocated.
  thread_local JsonFieldReader validator;
  return validator.read(text);
}

std::string_view to_string(amp_status status) {
  switch (status) {
    case AMP_OK: return "ok";
    case AMP_ERROR: return "error";
    case AMP_NOT_FOUND: return "not_found";
    case AMP_INVALID_ARGUMENT: return "invalid_argument";
    case AMP_UNSUPPORTED: return "unsupported";
    case AMP_CANCELLED: return "cancelled";
    case AMP_DENIED: return "denied";
    case AMP_BUSY: return "busy";
    default: return "unknown";
  }
}

std::string normalise_error_payload(amp_status status, std::string_view payload_json,
                                    std::string_view module_id) {
  boost::json::error_code ec;
  boost::json::value parsed = boost::json::parse(payload_json, ec, {}, kernel_parse_options());
  boost::json::object error;
  if (!ec && parsed.is_object()) error = std::move(parsed.as_object());
  if (!error.contains("kind") || !error["kind"].is_string())
    error["kind"] = status == AMP_CANCELLED ? "cancelled" : "internal";
  if (!error.contains("message") || !error["message"].is_string()) {
    std::string message = fmt::format("module '{}' failed with status {}", module_id,
                                      to_string(status));
    if (!payload_json.empty() && (ec || !parsed.is_object()))
      message += fmt::format(": {}", payload_json.substr(0, 500));
    error["message"] = message;
  }
  if (!error.contains("retryable")) error["retryable"] = false;
  return boost::json::serialize(error);
}

std::shared_ptr<CallRecord> CallRegistry::create(MountedModule &callee,
                                                 const MountedModule *caller,
                                                 CallObserver observer) {
  return add(&callee, caller, std::move(observer));
}

std::shared_ptr<CallRecord> CallRegistry::create_kernel_served(const MountedModule *caller,
                                                               CallObserver observer) {
  return add(nullptr, caller, std::move(observer));
}

std::shared_ptr<CallRecord> CallRegistry::add(MountedModule *callee, const MountedModule *caller,
                                              CallObserver observer) {
  auto call = std::make_shared<CallRecord>();
  call->id = next_call_id.fetch_add(1, std::memory_order_relaxed);
  call->callee = callee;
  call->caller = caller;
  call->observer = std::move(observer);
  std::lock_guard lock(mutex_);
  calls_.emplace(call->id, call);
  return call;
}

void CallRegistry::kernel_event(const std::shared_ptr<CallRecord> &call,
                                std::string_view event_json) {
  std::lock_guard delivery(call->delivery);
  if (!call->finished && call->observer.on_event) call->observer.on_event(call->id, event_json);
}

std::shared_ptr<CallRecord> CallRegistry::find(amp_call_id id) const {
  std::lock_guard lock(mutex_);
  auto it = calls_.find(id);
  return it == calls_.end() ? nullptr : it->second;
}

std::shared_ptr<CallRecord> CallRegistry::live_call(const MountedModule *reporter, amp_call_id id,
                                                    const char *what) {
  auto call = find(id);
  if (!call) {
    violation(reporter, fmt::format("{} for call {}, which is unknown or already finished; "
                                    "ignored", what, id));
    return nullptr;
  }
  if (call->callee != reporter) {
    violation(reporter, fmt::format("{} for call {}, which another module serves; ignored",
                                    what, id));
    return nullptr;
  }
  return call;
}

void CallRegistry::report_event(const MountedModule *reporter, amp_call_id id,
                                std::string_view event_json) {
  auto call = live_call(reporter, id, "stream event");
  if (!call) return;
  std::lock_guard delivery(call->delivery);
  if (call->finished) {
    violation(reporter, fmt::format("stream event after the end of call {}; ignored", id));
    return;
  }
  if (!is_valid_json(event_json)) {
    // A malformed event poisons the stream: end the call with a typed error the caller sees.
    violation(reporter, fmt::format("invalid JSON in a stream event of call {}", id));
    finish_locked(*call, AMP_ERROR,
                  fmt::format(R"({{"kind":"stream","message":"module '{}' sent a stream event )"
                              R"(that is not valid JSON","retryable":false}})",
                              reporter->id()));
    return;
  }
  if (call->observer.on_event) call->observer.on_event(id, event_json);
}

void CallRegistry::report_delta(const MountedModule *reporter, amp_call_id id,
                                std::uint32_t index, amp_delta_kind kind, std::string_view text) {
  auto call = live_call(reporter, id, "stream delta");
  if (!call) return;
  std::lock_guard delivery(call->delivery);
  if (call->finished) {
    violation(reporter, fmt::format("stream delta after the end of call {}; ignored", id));
    return;
  }
  if (!amp::sdk::json::is_known_delta(kind)) {
    violation(reporter, fmt::format("unknown delta kind {} in call {}", static_cast<int>(kind), id));
    finish_locked(*call, AMP_ERROR,
                  fmt::format(R"({{"kind":"stream","message":"module '{}' sent a stream delta )"
                              R"(of unknown kind {}","retryable":false}})",
                              reporter->id(), static_cast<int>(kind)));
    return;
  }
  if (call->observer.on_delta) return call->observer.on_delta(id, index, kind, text);
  if (!call->observer.on_event) return;
  // A caller that only reads JSON (built before ABI 1.2) gets the event the delta stands for.
  std::string rendered;
  amp::sdk::json::append_delta_event(rendered, index, kind, text);
  call->observer.on_event(id, rendered);
}

void CallRegistry::report_finish(const MountedModule *reporter, amp_call_id id,
                                 amp_status status, std::string_view payload_json) {
  auto call = live_call(reporter, id, "terminal event");
  if (!call) return;
  std::lock_guard delivery(call->delivery);
  if (call->finished) {
    violation(reporter, fmt::format("second terminal event for call {}; ignored", id));
    return;
  }
  if (status == AMP_OK && !is_valid_json(payload_json)) {
    violation(reporter, fmt::format("invalid JSON in the result of call {}", id));
    finish_locked(*call, AMP_ERROR,
                  fmt::format(R"({{"kind":"stream","message":"module '{}' returned a result )"
                              R"(that is not valid JSON","retryable":false}})",
                              reporter->id()));
    return;
  }
  finish_locked(*call, status, payload_json);
}

void CallRegistry::finish_by_kernel(const std::shared_ptr<CallRecord> &call, amp_status status,
                                    std::string payload_json) {
  std::lock_guard delivery(call->delivery);
  if (!call->finished) finish_locked(*call, status, payload_json);
}

void CallRegistry::finish_locked(CallRecord &call, amp_status status,
                                 std::string_view payload_json) {
  call.finished = true;
  std::string normalised;
  if (status != AMP_OK) {
    normalised = normalise_error_payload(status, payload_json,
                                         call.callee ? call.callee->id() : "kernel");
    payload_json = normalised;
  }
  // Keep the record alive through the observer, then forget it so late reports are caught.
  auto keep = find(call.id);
  try {
    if (call.observer.on_finish) call.observer.on_finish(call.id, status, payload_json);
  } catch (const std::exception &e) {
    log(LogLevel::Error, kCallsLog, fmt::format("call {} observer threw: {}", call.id, e.what()));
  }
  forget(call.id);
}

void CallRegistry::forget(amp_call_id id) {
  {
    std::lock_guard lock(mutex_);
    calls_.erase(id);
  }
  idle_.notify_all();
}

namespace {
bool takes_part(const CallRecord &call, const MountedModule *module, CallRegistry::Role role) {
  return (role == CallRegistry::Role::callee ? call.callee : call.caller) == module;
}
}  // namespace

std::vector<std::shared_ptr<CallRecord>> CallRegistry::in_flight(const MountedModule *module,
                                                                 Role role) const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<CallRecord>> out;
  for (auto &[id, call] : calls_)
    if (!module || takes_part(*call, module, role)) out.push_back(call);
  return out;
}

bool CallRegistry::wait_idle(const MountedModule *module, std::chrono::milliseconds timeout,
                             Role role) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, timeout, [&] {
    for (auto &[id, call] : calls_)
      if (takes_part(*call, module, role)) return false;
    return true;
  });
}

}  // namespace amplifier
