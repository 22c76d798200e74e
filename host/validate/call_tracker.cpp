#include "call_tracker.hpp"

#include "checks.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <thread>

namespace amplifier::host::validate {

CallObserver CallTracker::observer() {
  CallObserver observer;
  auto streamed = [this](amp_call_id call) {
    std::lock_guard lock(mutex_);
    ends_[call].streamed = true;
    changed_.notify_all();
  };
  observer.on_event = [streamed](amp_call_id call, std::string_view) { streamed(call); };
  observer.on_delta = [streamed](amp_call_id call, std::uint32_t, amp_delta_kind,
                                 std::string_view) { streamed(call); };
  observer.on_finish = [this](amp_call_id call, amp_status status, std::string_view payload) {
    std::lock_guard lock(mutex_);
    CallEnd &end = ends_[call];
    if (end.finishes++ == 0) ++ended_;
    end.status = status;
    end.payload = std::string(payload);
    changed_.notify_all();
  };
  return observer;
}

bool CallTracker::wait_ended(std::size_t count, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return ended_ >= count; });
}

void CallTracker::wait_started(amp_call_id call, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] {
    auto it = ends_.find(call);
    return it != ends_.end() && (it->second.streamed || it->second.finishes > 0);
  });
}

std::map<amp_call_id, CallEnd> CallTracker::ends() const {
  std::lock_guard lock(mutex_);
  return ends_;
}

std::string error_kind(const CallEnd &end) {
  boost::json::error_code ec;
  auto v = boost::json::parse(end.payload, ec);
  const auto *kind = !ec && v.is_object() ? v.get_object().if_contains("kind") : nullptr;
  return kind && kind->is_string() ? std::string(kind->get_string()) : std::string();
}

std::string describe_end(const CallEnd &end) {
  if (end.status == AMP_OK) return "ok";
  boost::json::error_code ec;
  auto v = boost::json::parse(end.payload, ec);
  const auto *message = !ec && v.is_object() ? v.get_object().if_contains("message") : nullptr;
  return one_line(fmt::format("error {}: {}", error_kind(end),
                              message && message->is_string() ? std::string(message->get_string())
                                                              : end.payload),
                  200);
}

CheckResult judge_calls(const std::string &check, const ProbeKernel &probe,
                        const CallTracker &tracker, const std::vector<amp_call_id> &ids,
                        const std::string &what, const std::string &summary) {
  std::this_thread::sleep_for(kSettleTime);
  const auto ends = tracker.ends();
  std::size_t lost = 0, repeated = 0;
  for (amp_call_id id : ids) {
    auto it = ends.find(id);
    const int finishes = it == ends.end() ? 0 : it->second.finishes;
    lost += finishes == 0;
    repeated += finishes > 1;
  }
  if (lost > 0)
    return fail(
        check,
        fmt::format("{} of {} ({}) got no terminal event within {} s", lost, ids.size(), what,
                    std::chrono::duration_cast<std::chrono::seconds>(kCallPatience).count()));
  if (repeated > 0)
    return fail(check,
                fmt::format("{} of {} ({}) ended more than once", repeated, ids.size(), what));
  if (auto violations = probe.protocol_violations(); !violations.empty())
    return fail(check, one_line(fmt::format("{} protocol violations in {}, first: {}",
                                            violations.size(), what, violations.front())));
  return pass(check, summary);
}

}  // namespace amplifier::host::validate
