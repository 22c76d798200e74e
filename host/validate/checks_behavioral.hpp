// The behavioral checks (--behavioral), each run in a process of its own.
#pragma once
#include "call_subject.hpp"
#include "checks.hpp"

namespace amplifier::host::validate {

// call-invalid-json, call-cancel-graceful, call-cancel-immediate, call-concurrent.
CheckResult call_check(const std::string &check, const CheckContext &context);

CheckResult provider_offline_check(const CheckContext &context);
CheckResult tool_bad_input_check(const CheckContext &context);
CheckResult hook_events_check(const CheckContext &context);
CheckResult context_round_trip_check(const CheckContext &context);
CheckResult context_sessions_query_check(const CheckContext &context);
CheckResult orchestrator_turn_check(const CheckContext &context);

// A failed check leaves its kernel as it is, unmounted: tearing down a module that just
// misbehaved (a call that never ended, a thread still reporting) only adds waiting, and the
// process ends right after its result (the kernel is kept, reachable, until then). A passing
// check tears down normally, so a crash in destroy still fails it.
CheckResult keep_if_failed(CallSubject &subject, CheckResult result);

}  // namespace amplifier::host::validate
