// call-invalid-json, call-cancel-graceful, call-cancel-immediate, call-concurrent: the call
// protocol of every kind that serves calls (providers, tools, orchestrators). Each call must
// end with exactly one terminal event, and nothing may be reported after it (the kernel's
// call registry logs every such report as a protocol violation, which fails the check).
#include "call_subject.hpp"
#include "checks_behavioral.hpp"

#include <fmt/format.h>

namespace amplifier::host::validate {
namespace {

constexpr std::size_t kConcurrentCalls = 200;
// How long the cancel check waits for a call to be under way before cancelling it anyway.
constexpr auto kStartPatience = std::chrono::milliseconds(1000);
// provider-mock pacing for orchestrator turns that must still run when cancelled.
const boost::json::object kSlowMock{{"delay_ms", 20}};

std::string kind_noun(amp_module_kind kind) {
  switch (kind) {
    case AMP_KIND_PROVIDER:
      return "completion";
    case AMP_KIND_TOOL:
      return "tool call";
    default:
      return "turn";
  }
}

CheckResult invalid_json(const CheckContext &context) {
  CallTracker tracker;  // outlives the kernel, whose calls report to it
  CallSubject s = make_call_subject(context);
  amp_call_id id = s.start(s.invalid_json_input, tracker.observer());
  tracker.wait_ended(1, kCallPatience);
  auto end = tracker.ends()[id];
  return keep_if_failed(
      s, judge_calls("call-invalid-json", *s.probe, tracker, {id},
                     "the " + kind_noun(s.kind) + " given truncated JSON",
                     "a " + kind_noun(s.kind) + " given truncated JSON ended once (" +
                         describe_end(end) + ")"));
}

CheckResult cancel(const CheckContext &context, CancelLevel level, const std::string &check) {
  CallTracker tracker;  // outlives the kernel, whose calls report to it
  CallSubject s = make_call_subject(context, kSlowMock);
  Coordinator &c = s.probe->coordinator();
  // One call cancelled at once (racing its start), one once it is under way.
  amp_call_id early = s.start(s.input, tracker.observer());
  c.cancel_call(early, level);
  amp_call_id running = s.start(s.input, tracker.observer());
  tracker.wait_started(running, kStartPatience);
  c.cancel_call(running, level);
  tracker.wait_ended(2, kCallPatience);
  auto ends = tracker.ends();
  const std::string noun = kind_noun(s.kind);
  return keep_if_failed(
      s, judge_calls(check, *s.probe, tracker, {early, running},
                     fmt::format("the {}s cancelled {}", noun, amplifier::to_string(level)),
                     fmt::format("two {}s cancelled {} (at once, and under way) ended once each "
                                 "({}; {})",
                                 noun, amplifier::to_string(level), describe_end(ends[early]),
                                 describe_end(ends[running]))));
}

CheckResult concurrent(const CheckContext &context) {
  CallTracker tracker;  // outlives the kernel, whose calls report to it
  CallSubject s = make_call_subject(context);
  std::vector<amp_call_id> ids;
  for (std::size_t i = 0; i < kConcurrentCalls; ++i)
    ids.push_back(s.start(s.input, tracker.observer()));
  tracker.wait_ended(kConcurrentCalls, kCallPatience);
  std::size_t ok = 0;
  for (const auto &[id, end] : tracker.ends()) ok += end.finishes > 0 && end.status == AMP_OK;
  const std::string noun = kind_noun(s.kind);
  return keep_if_failed(
      s, judge_calls("call-concurrent", *s.probe, tracker, ids,
                     fmt::format("{} concurrent {}s", kConcurrentCalls, noun),
                     fmt::format("{} concurrent {}s on one instance ended once each ({} ok)",
                                 kConcurrentCalls, noun, ok)));
}

}  // namespace

CheckResult call_check(const std::string &check, const CheckContext &context) {
  return guarded_check(check, [&]() -> CheckResult {
    if (check == "call-invalid-json") return invalid_json(context);
    if (check == "call-cancel-graceful")
      return cancel(context, CancelLevel::Graceful, "call-cancel-graceful");
    if (check == "call-cancel-immediate")
      return cancel(context, CancelLevel::Immediate, "call-cancel-immediate");
    return concurrent(context);
  });
}

}  // namespace amplifier::host::validate
