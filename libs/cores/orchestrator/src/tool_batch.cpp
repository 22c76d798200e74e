#include "amplifier/orchestrator/tool_batch.hpp"

#include "amplifier/orchestrator/approval.hpp"
#include "amplifier/orchestrator/call_errors.hpp"
#include "amplifier/orchestrator/events.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace {

constexpr std::string_view kCancelledText = "Tool execution was cancelled by the user.";
constexpr std::string_view kNotStartedText =
    "Not run: the turn was cancelled before this tool call started.";

// What a started call reports; guarded by the turn signal's mutex, written once.
struct PendingTool {
  bool finished = false;
  std::size_t finish_rank = 0;  // 1 for the batch's first call to finish, 2 for the next...
  amp_status status = AMP_ERROR;
  std::string payload;
};

ToolOutcome error_outcome(const ToolCallBlock &call, std::string text) {
  return ToolOutcome{call.id, call.name, json::value(std::move(text)), true, {}};
}

std::string list_names(const std::set<std::string, std::less<>> &names) {
  std::string out;
  for (const auto &n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// A failed or cancelled call's "report" (a delegate's child spent something before it
// stopped); null when the payload has none or is not JSON.
json::value report_in(std::string_view payload) {
  json::error_code ec;
  json::value parsed = json::parse(payload, ec);
  const json::value *report = !ec && parsed.is_object() ? parsed.as_object().if_contains("report") : nullptr;
  return report ? *report : json::value();
}

// The model reads a failed ToolResult as "Error: <message>".
ToolOutcome outcome_from_result(const ToolCallBlock &call, const json::value &result_json) {
  const json::object *o = result_json.if_object();
  if (!o || !o->contains("success")) return ToolOutcome{call.id, call.name, result_json, false, {}};
  ToolResult result = from_json<ToolResult>(result_json);
  json::value report;
  if (json::value *r = result.extra.if_contains("report")) report = std::move(*r);
  if (result.success)
    return ToolOutcome{call.id, call.name, std::move(result.output), false, std::move(report)};
  std::string message = result.error ? result.error->message
                        : result.output.is_null() ? std::string("the tool reported a failure")
                                                  : json::serialize(result.output);
  ToolOutcome failed = error_outcome(call, "Error: " + message);
  failed.report = std::move(report);
  return failed;
}

// One response's calls while they run. Everything here runs in the turn's coroutine except the
// sink callbacks, which only publish into PendingTool through the signal (and so wake it).
class BatchRun {
 public:
  BatchRun(const amp::sdk::Host &host, std::shared_ptr<TurnSignal> signal,
           const std::vector<ToolCallBlock> &calls, const std::set<std::string, std::less<>> &available,
           std::chrono::milliseconds cancel_grace)
      : host_(host), signal_(std::move(signal)), calls_(calls), available_(available),
        cancel_grace_(cancel_grace), group_id_(new_parallel_group_id()),
        outcomes_(calls.size()), pending_(calls.size()), call_ids_(calls.size(), 0),
        reported_(calls.size(), false), rewritten_(calls.size()) {}

  Task<ToolBatch> run() {
    for (std::size_t i = 0; i < calls_.size(); ++i) start_guarded(i);
    co_await collect_results();
    for (std::size_t i = 0; i < calls_.size(); ++i) {
      if (!outcomes_[i])  // unreachable by construction; the transcript must stay valid anyway
        outcomes_[i] = error_outcome(calls_[i], "Error: the tool call produced no result");
      batch_.outcomes.push_back(std::move(*outcomes_[i]));
    }
    co_return std::move(batch_);
  }

 private:
  json::object call_payload(std::size_t i) const {
    return json::object{{"tool_name", calls_[i].name},
                        {"tool_input", input_of(i)},
                        {"tool_call_id", calls_[i].id},
                        {"parallel_group_id", group_id_}};
  }

  void emit_tool_error(std::size_t i, std::string_view type, std::string_view message) {
    notify_with(host_, event::kToolError, [&] {
      json::object payload = call_payload(i);
      payload["error"] = json::object{{"type", type}, {"message", message}};
      return payload;
    });
  }

  HookOutcome emit_and_collect(std::string_view event, const json::object &payload) {
    HookOutcome outcome = emit_event(host_, event, payload);
    sort_injections(outcome, batch_.to_store, batch_.for_next_request);
    return outcome;
  }

  void start_guarded(std::size_t i) {
    try {
      start(i);
    } catch (const std::exception &e) {
      if (pending_[i]) return;  // started: its own terminal event decides its outcome
      std::string message = std::string("Error: the tool call could not be started: ") + e.what();
      emit_tool_error(i, "internal", message);
      outcomes_[i] = error_outcome(calls_[i], std::move(message));
    }
  }

  void start(std::size_t i) {
    const ToolCallBlock &call = calls_[i];
    if (cancelled_before_start(i)) return;
    // A hook ended the turn at an earlier call of this batch: nothing more starts.
    if (batch_.end_turn) {
      outcomes_[i] = error_outcome(call, "Not run: " + *batch_.end_turn);
      return;
    }
    if (rejected_arguments(i)) return;
    // An ask_user is settled here, in the turn (blocking a pool worker while the user thinks):
    // the user's answer decides whether this call starts. The calls after it wait, the ones already started keep running.
    HookOutcome pre = emit_and_collect(event::kToolPre, call_payload(i));
    take_modified_input(i, pre);
    pre = settle_approval(
        host_, std::move(pre),
        ApprovalSubject{event::kToolPre, call.name,
                        json::object{{"tool_input", input_of(i)}, {"tool_call_id", call.id}}});
    if (pre.end_turn && !batch_.end_turn) batch_.end_turn = pre.end_reason();
    if (pre.denies()) {
      outcomes_[i] = error_outcome(call, "Denied by hook: " + pre.deny_reason());
      return;
    }
    if (pre.end_turn) {
      outcomes_[i] = error_outcome(call, "Not run: " + pre.end_reason());
      return;
    }
    // Checked again: tool:pre may take long (an approval) and the turn may be cancelled
    // meanwhile; a call that has not started by then is new work.
    if (cancelled_before_start(i)) return;
    if (!available_.contains(call.name)) {
      std::string message = "Error: tool '" + call.name + "' is not available. Available tools: " +
                            list_names(available_) + ".";
      emit_tool_error(i, "tool_not_found", message);
      outcomes_[i] = error_outcome(call, std::move(message));
      return;
    }
    execute(i);
  }

  // A tool:pre hook that answered "updated_tool_input" (hooks-shell for a Claude Code hook's
  // updatedInput) changes what the call runs with, and tool:post shows the new input. A plain
  // `modify` of the payload does not: hooks-redaction modifies it for the logs. Trust: hooks
  // are the operator's modules; the model's own call is unchanged in the transcript, and a
  // rewriting hook registers before the approval hooks, whose payload it also modifies, so
  // they judge the input that will run.
  void take_modified_input(std::size_t i, const HookOutcome &pre) {
    if (pre.updated_tool_input) rewritten_[i] = *pre.updated_tool_input;
  }

  // A provider that could not read the model's arguments as a JSON object says so in
  // extra.arguments_error (kernel/model content.hpp): the model gets an error it can act on,
  // and the tool never runs on input it did not write.
  bool rejected_arguments(std::size_t i) {
    const ToolCallBlock &call = calls_[i];
    const json::value *reason = call.extra.if_contains("arguments_error");
    if (!reason || !reason->is_string()) return false;
    std::string message = "Error: the arguments of this call to tool '" + call.name +
                          "' could not be used: " + std::string(reason->get_string()) + ".";
    if (const json::value *raw = call.extra.if_contains("arguments"); raw && raw->is_string())
      message += " They were: " + std::string(raw->get_string());
    message += "\nCall the tool again with the arguments as one JSON object.";
    emit_tool_error(i, "invalid_arguments", message);
    outcomes_[i] = error_outcome(call, std::move(message));
    return true;
  }

  bool cancelled_before_start(std::size_t i) {
    if (signal_->level() < AMP_CANCEL_GRACEFUL) return false;
    outcomes_[i] = error_outcome(calls_[i], std::string(kNotStartedText));
    return true;
  }

  void execute(std::size_t i) {
    auto pending = std::make_shared<PendingTool>();
    amp_call_sink sink = amp::sdk::CallbackSink::make(
        nullptr, [signal = signal_, pending, finished = finished_count_](
                     amp_call_id, amp_status status, std::string_view payload) {
          signal->publish([&] {
            pending->finished = true;
            pending->finish_rank = ++*finished;
            pending->status = status;
            pending->payload.assign(payload);
          });
        });
    amp_call_id id = 0;
    amp_status started = host_.tool_execute(calls_[i].name, json::serialize(input_of(i)), sink, &id);
    if (started != AMP_OK) {
      amp::sdk::CallbackSink::discard(sink);
      std::string message = "Error: the host refused to run tool '" + calls_[i].name +
                            "' (status " + std::to_string(static_cast<int>(started)) + ").";
      emit_tool_error(i, "start_failed", message);
      outcomes_[i] = error_outcome(calls_[i], std::move(message));
      return;
    }
    pending_[i] = std::move(pending);
    call_ids_[i] = id;
  }

  bool awaiting(std::size_t i) const { return pending_[i] && !reported_[i]; }

  // Reports calls as they finish (tool:post in finish order, so observers see each result
  // when it happens) until every started call has been reported or an immediate cancel comes.
  Task<void> collect_results() {
    for (;;) {
      std::vector<std::size_t> ready;
      bool any_awaiting = false;
      auto progress = [&] {
        ready.clear();
        any_awaiting = false;
        for (std::size_t i = 0; i < calls_.size(); ++i) {
          if (!awaiting(i)) continue;
          any_awaiting = true;
          if (pending_[i]->finished) ready.push_back(i);
        }
        return !ready.empty() || !any_awaiting;
      };
      if (!co_await signal_->until(progress, AMP_CANCEL_IMMEDIATE)) {
        co_await settle_after_immediate_cancel();
        co_return;
      }
      if (!any_awaiting) co_return;
      // Calls that finished while the turn thread was busy are reported in finish order.
      std::sort(ready.begin(), ready.end(), [&](std::size_t a, std::size_t b) {
        return pending_[a]->finish_rank < pending_[b]->finish_rank;
      });
      for (std::size_t i : ready) report_guarded(i);
    }
  }

  Task<void> settle_after_immediate_cancel() {
    for (std::size_t i = 0; i < calls_.size(); ++i)
      if (awaiting(i)) host_.cancel_call(call_ids_[i], AMP_CANCEL_IMMEDIATE);
    auto all_finished = [&] {
      for (std::size_t i = 0; i < calls_.size(); ++i)
        if (awaiting(i) && !pending_[i]->finished) return false;
      return true;
    };
    co_await signal_->until(all_finished, std::nullopt, TurnSignal::Clock::now() + cancel_grace_);
    for (std::size_t i = 0; i < calls_.size(); ++i) {
      if (!awaiting(i)) continue;
      if (signal_->read([&] { return pending_[i]->finished; })) {
        report_guarded(i);
      } else {
        // Abandoned: its sink stays valid (shared state) and any late report is ignored.
        reported_[i] = true;
        emit_tool_error(i, "cancelled", kCancelledText);
        outcomes_[i] = error_outcome(calls_[i], std::string(kCancelledText));
      }
    }
  }

  void report_guarded(std::size_t i) {
    reported_[i] = true;
    try {
      report(i);
    } catch (const std::exception &e) {
      std::string message = std::string("Error: the tool result could not be processed: ") + e.what();
      emit_tool_error(i, "internal", message);
      outcomes_[i] = error_outcome(calls_[i], std::move(message));
    }
  }

  void report(std::size_t i) {
    const ToolCallBlock &call = calls_[i];
    const PendingTool &done = *pending_[i];
    if (done.status == AMP_CANCELLED) {
      emit_tool_error(i, "cancelled", kCancelledText);
      outcomes_[i] = error_outcome(call, std::string(kCancelledText));
      outcomes_[i]->report = report_in(done.payload);
      return;
    }
    if (done.status != AMP_OK) {
      KernelError error = error_from_payload(done.payload);
      emit_tool_error(i, to_string(error.kind), error.message);
      outcomes_[i] = error_outcome(call, "Error: " + error.message);
      outcomes_[i]->report = report_in(done.payload);
      return;
    }
    json::value result = parse_json(done.payload);
    from_json<ToolResult>(result);  // a malformed result fails here, before any hook sees it
    json::object payload = call_payload(i);
    payload["result"] = result;
    HookOutcome post = emit_and_collect(event::kToolPost, payload);
    if (post.end_turn && !batch_.end_turn) batch_.end_turn = post.end_reason();
    outcomes_[i] = outcome_from_result(call, replaced_result(post, result));
  }

  // A tool:post hook that modified the payload's `result` replaces the result.
  static const json::value &replaced_result(const HookOutcome &post, const json::value &original) {
    const json::object *data = post.data.if_object();
    const json::value *replacement = data ? data->if_contains("result") : nullptr;
    return replacement && *replacement != original ? *replacement : original;
  }

  const amp::sdk::Host &host_;
  std::shared_ptr<TurnSignal> signal_;
  const std::vector<ToolCallBlock> &calls_;
  const std::set<std::string, std::less<>> &available_;
  std::chrono::milliseconds cancel_grace_;
  std::string group_id_;
  std::vector<std::optional<ToolOutcome>> outcomes_;
  std::vector<std::shared_ptr<PendingTool>> pending_;  // null: never started
  std::vector<amp_call_id> call_ids_;
  std::vector<bool> reported_;  // the turn's coroutine only
  // What a tool:pre hook rewrote a call's input to (most calls: none, and no copy is made).
  std::vector<std::optional<json::object>> rewritten_;
  const json::object &input_of(std::size_t i) const {
    if (rewritten_[i]) return *rewritten_[i];
    return calls_[i].input;
  }
  // How many calls of the batch have finished; guarded by the signal's mutex. Shared with the
  // sinks, which may outlive the batch.
  std::shared_ptr<std::size_t> finished_count_ = std::make_shared<std::size_t>(0);
  ToolBatch batch_;
};

}  // namespace

Task<ToolBatch> run_tool_batch(const amp::sdk::Host &host, std::shared_ptr<TurnSignal> signal,
                               const std::vector<ToolCallBlock> &calls,
                               const std::set<std::string, std::less<>> &available,
                               std::chrono::milliseconds cancel_grace) {
  BatchRun batch(host, std::move(signal), calls, available, cancel_grace);
  co_return co_await batch.run();
}

ToolOutcome not_run_outcome(const ToolCallBlock &call, std::string_view why) {
  return error_outcome(call, "Not run: " + std::string(why));
}

json::object tool_result_message(const ToolOutcome &outcome) {
  json::object block{{"type", ToolResultBlock::kType},
                     {"tool_call_id", outcome.tool_call_id},
                     {"output", outcome.output}};
  if (outcome.is_error) block["is_error"] = true;
  return json::object{{"role", "tool"},
                      {"tool_call_id", outcome.tool_call_id},
                      {"name", outcome.tool_name},
                      {"content", json::array{std::move(block)}}};
}

// A version 4 UUID from the operating system's random source (getrandom), not from a
// generator seeded once per thread.
std::string new_parallel_group_id() {
  boost::uuids::random_generator generate;
  return boost::uuids::to_string(generate());
}

}  // namespace amplifier::orchestrator
