#include "amplifier/orchestrator/agent_turn.hpp"

#include "amplifier/orchestrator/approval.hpp"
#include "amplifier/orchestrator/events.hpp"
#include "amplifier/orchestrator/messages.hpp"
#include "amplifier/orchestrator/tool_result_limit.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>

namespace amplifier::orchestrator {

namespace json = boost::json;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;
using amplifier::ToolCallBlock;

namespace {

std::set<std::string, std::less<>> tool_names_of(const json::array &specs) {
  std::set<std::string, std::less<>> names;
  for (const auto &spec : specs) {
    const json::object *o = spec.if_object();
    const json::value *name = o ? o->if_contains("name") : nullptr;
    if (name && name->is_string()) names.emplace(name->get_string());
  }
  return names;
}

json::array tool_calls_json(const std::vector<ToolCallBlock> &calls) {
  json::array out;
  for (const auto &call : calls) out.push_back(to_json(call));
  return out;
}

std::string denial(const HookOutcome &outcome) {
  return "Denied by hook: " + outcome.deny_reason();
}

// What the closing assistant message says when a turn ends without the assistant's answer
// being the last message (see close_transcript).
std::string closing_note(const TurnOutcome &outcome) {
  switch (outcome.status) {
    case TurnOutcome::Status::Cancelled:
      return "[The turn was cancelled before the assistant finished responding.]";
    case TurnOutcome::Status::Error:
      return "[The turn ended with an error before the assistant could respond: " +
             outcome.response + "]";
    default:
      return outcome.response.empty()
                 ? "[The turn ended before the assistant responded.]"
                 : "[The turn ended before the assistant responded: " + outcome.response + "]";
  }
}

}  // namespace

AgentTurn::AgentTurn(const amp::sdk::Host &host, const LoopConfig &config,
                     CallPacer &pacer, SessionLedger &ledger,
                     std::shared_ptr<TurnSignal> signal, amp_call_id call)
    : host_(host), config_(config), pacer_(pacer), ledger_(ledger), signal_(std::move(signal)),
      call_(call) {}

Task<TurnOutcome> AgentTurn::run(TurnInput input) {
  TurnOutcome outcome;
  try {
    outcome = co_await run_steps(std::move(input));
  } catch (const KernelException &e) {
    outcome = TurnOutcome::failed(e.error(), iterations_);
  } catch (const std::exception &e) {
    outcome = TurnOutcome::failed(KernelError::make(ErrorKind::internal, e.what()), iterations_);
  } catch (...) {
    outcome = TurnOutcome::failed(
        KernelError::make(ErrorKind::internal, "the turn failed with a non-standard exception"),
        iterations_);
  }
  close_transcript(outcome);
  co_return outcome;
}

Task<TurnOutcome> AgentTurn::run_steps(TurnInput input) {
  const std::string &prompt = input.prompt;
  notify_with(host_, event::kExecutionStart, [&] { return json::object{{"prompt", prompt}}; });
  // A route the plan does not have ends the turn before anything is stored or counted.
  const json::value providers = amplifier::parse_json(host_.providers());
  choose_route(input.route, providers);
  // A turn the budget no longer allows does not start: the prompt is not stored.
  ledger_.restore_once(host_);
  if (auto over = ledger_.begin_turn()) co_return over_budget(*over);
  turn_totals_.turns = 1;
  if (auto denied = submit_prompt(prompt, input.mode)) co_return std::move(*denied);
  provider_ = route_.empty() ? select_provider(providers, config_.provider) : route_.front();
  tool_specs_json_ = host_.tools();
  json::value specs = amplifier::parse_json(tool_specs_json_);
  if (specs.is_array()) {
    tool_names_ = tool_names_of(specs.get_array());
    has_tools_ = !specs.get_array().empty();
  }

  for (;;) {
    // Graceful cancellation takes effect here, between iterations: the running work has
    // finished and its results are stored, and no new provider call starts.
    if (cancel_level() >= AMP_CANCEL_GRACEFUL) co_return TurnOutcome::cancelled(last_text_, iterations_);
    if (auto end = co_await iterate(config_.iteration_limit_reached(iterations_)))
      co_return std::move(*end);  // moved: the answer may be megabytes
  }
}

void AgentTurn::choose_route(const std::optional<std::string> &asked, const json::value &providers) {
  const auto routing_text = host_.capability("session.routing");
  const json::value routing = routing_text ? amplifier::parse_json(*routing_text) : json::value();
  if (asked) {
    // A turn that asks for a role gets it or an error, never another provider in silence.
    const json::object *roles = routing.if_object();
    if (!roles || !roles->contains(*asked)) {
      std::string known;
      if (roles)
        for (const auto &role : *roles) known += (known.empty() ? "" : ", ") + std::string(role.key());
      throw KernelException(KernelError::make(
          ErrorKind::invalid_request,
          "the turn asks for route '" + *asked + "', which the plan's routing does not have (" +
              (known.empty() ? std::string("the plan has no routing") : "its roles: " + known) + ")"));
    }
    route_ = route_of(routing, *asked, providers);
    if (route_.empty())
      throw KernelException(KernelError::make(
          ErrorKind::configuration, "none of route '" + *asked + "''s providers is mounted"));
    return;
  }
  if (!config_.provider && !routing.is_null()) route_ = route_of(routing, config_.route, providers);
}

std::optional<TurnOutcome> AgentTurn::submit_prompt(const std::string &prompt,
                                                    const std::optional<std::string> &mode) {
  HookOutcome submit =
      emit_gated(host_, event::kPromptSubmit, json::object{{"prompt", prompt}},
                       ApprovalSubject{event::kPromptSubmit, {}, json::object{{"prompt", prompt}}});
  // The reference ends a denied prompt with the reason as the response; nothing is stored.
  if (submit.denies()) return TurnOutcome::incomplete(denial(submit), 0);
  json::object message = text_message("user", prompt);
  if (mode) message["metadata"] = json::object{{"mode", *mode}};
  store(message);
  absorb(submit);
  return std::nullopt;
}

Task<std::optional<TurnOutcome>> AgentTurn::iterate(bool final_call) {
  // Checked before every call, never during one: an answer being streamed is not cut off.
  if (auto over = ledger_.before_call()) co_return over_budget(*over);
  json::object request_event{{"provider", provider_}, {"iteration", iterations_ + 1}};
  if (config_.model && model_applies_) request_event["model"] = *config_.model;
  if (final_call) request_event["max_reached"] = true;
  HookOutcome before = emit_gated(
      host_, event::kProviderRequest, request_event,
      ApprovalSubject{event::kProviderRequest, {}, request_event});
  // A refused call still keeps what the hooks gave the conversation to keep: a message the
  // user steered into this step rides on it, and the turn ending must not lose it.
  absorb(before);
  if (before.denies()) co_return TurnOutcome::incomplete(denial(before), iterations_);

  // Kept for a retry after a context_length refusal, which must carry them as well.
  const std::vector<Injection> ephemeral = std::exchange(ephemeral_for_next_request_, {});
  std::string request = build_request(final_call, ephemeral, false);
  // The hooks may have taken a while; a cancel that came meanwhile starts no provider call.
  if (cancel_level() >= AMP_CANCEL_GRACEFUL) co_return TurnOutcome::cancelled(last_text_, iterations_);
  // Pacing comes after the hooks and the context, so their time counts towards the delay.
  if (!co_await pacer_.wait_turn(*signal_)) co_return TurnOutcome::cancelled(last_text_, iterations_);
  ++iterations_;
  RequestFingerprint sent = fingerprint_of(request);
  ProviderResult result =
      co_await call_provider(host_, signal_, provider_, std::move(request), config_.cancel_grace);
  std::optional<json::object> fell_back;  // where the answer came from, when not the first
  for (;;) {
    if (is_context_overflow(result))
      result = co_await retry_compacted(final_call, ephemeral, sent, std::move(result));
    const std::optional<std::string> next = next_in_route(result);
    if (!next) break;
    // The same request, asked of the next provider of the route: announced, gated and paced
    // as any call; the context adapts the history to it (what it cannot take is recorded).
    const std::string from = std::exchange(provider_, *next);
    model_applies_ = false;  // the loop's `model` names a model of the first provider
    const json::object note{{"from", from},
                            {"to", provider_},
                            {"reason", to_string(result.error.kind)},
                            {"error", to_json(result.error)}};
    notify_with(host_, event::kProviderFallback, [&] { return note; });
    if (!fell_back) fell_back = json::object{{"from", from}, {"reason", to_string(result.error.kind)}};
    json::object again{{"provider", provider_}, {"iteration", iterations_}, {"fallback_from", from}};
    if (final_call) again["max_reached"] = true;
    HookOutcome gate = emit_gated(host_, event::kProviderRequest, again,
                                  ApprovalSubject{event::kProviderRequest, {}, again});
    absorb(gate);  // kept even when the call is refused, as above
    if (gate.denies()) co_return TurnOutcome::incomplete(denial(gate), iterations_);
    if (cancel_level() >= AMP_CANCEL_GRACEFUL || !co_await pacer_.wait_turn(*signal_))
      co_return TurnOutcome::cancelled(last_text_, iterations_);
    std::string again_request = build_request(final_call, ephemeral, false);
    sent = fingerprint_of(again_request);
    result = co_await call_provider(host_, signal_, provider_, std::move(again_request),
                                    config_.cancel_grace);
  }
  // The answer says where it came from: kept in the stored message's metadata.
  if (fell_back && result.status == ProviderResult::Status::Response) {
    json::value &metadata = result.response_json["metadata"];
    if (!metadata.is_object()) metadata = json::object{};
    metadata.get_object()["fallback"] = std::move(*fell_back);
  }
  co_return co_await handle_response(std::move(result), final_call);
}

std::optional<std::string> AgentTurn::next_in_route(const ProviderResult &result) const {
  if (result.status != ProviderResult::Status::Error || result.content_streamed ||
      !safe_to_fall_back(result.error.kind))
    return std::nullopt;
  auto at = std::find(route_.begin(), route_.end(), provider_);
  if (at == route_.end() || std::next(at) == route_.end()) return std::nullopt;
  return *std::next(at);
}

bool AgentTurn::is_context_overflow(const ProviderResult &result) {
  // Once content has been shown, a second answer would follow the first: no retry then.
  return result.status == ProviderResult::Status::Error &&
         result.error.kind == ErrorKind::context_length && !result.content_streamed;
}

// The provider refused the request as too long. Sending it again would fail the same way, so
// the context is asked for a compacted one (the hint makes it budget below what was refused);
// that one is sent once. A context that cannot make it any smaller gets no retry at all.
Task<ProviderResult> AgentTurn::retry_compacted(bool final_call,
                                                const std::vector<Injection> &ephemeral,
                                                RequestFingerprint refused, ProviderResult failed) {
  std::string request = build_request(final_call, ephemeral, true);
  if (fingerprint_of(request) == refused) {
    failed.error.message += " (compacting the conversation could not make the request smaller)";
    co_return failed;
  }
  notify_with(host_, event::kProviderRetry, [&] {
    return json::object{{"provider", provider_},
                        {"iteration", iterations_},
                        {"attempt", 2},
                        {"delay", 0},
                        {"reason", "context_length"},
                        {"compacted", true},
                        {"error", to_json(failed.error)}};
  });
  if (cancel_level() >= AMP_CANCEL_GRACEFUL || !co_await pacer_.wait_turn(*signal_))
    co_return ProviderResult{ProviderResult::Status::Cancelled, {}, {}, {}, false};
  co_return co_await call_provider(host_, signal_, provider_, std::move(request),
                                   config_.cancel_grace);
}

AgentTurn::RequestFingerprint AgentTurn::fingerprint_of(std::string_view request) {
  return RequestFingerprint{request.size(), std::hash<std::string_view>{}(request)};
}

std::string AgentTurn::context_hints(bool after_overflow) const {
  json::object hints{{"provider", provider_}};
  if (config_.model && model_applies_) hints["model"] = *config_.model;
  if (config_.max_output_tokens) hints["max_output_tokens"] = *config_.max_output_tokens;
  if (after_overflow) hints["context_overflow"] = true;
  return json::serialize(hints);
}

namespace {

void append_member(std::string &request, std::string_view key, const json::value &value) {
  request.push_back(',');
  amp::sdk::json::append_quoted(request, key);
  request.push_back(':');
  request += json::serialize(value);
}

}  // namespace

std::string AgentTurn::build_request(bool final_call, const std::vector<Injection> &ephemeral,
                                     bool after_overflow) {
  std::string messages = host_.context_for_request(context_hints(after_overflow));
  if (!ephemeral.empty() || final_call) {
    // Ephemeral injections reshape the last messages: the one case that reads the history.
    json::value parsed = amplifier::parse_json(messages);
    if (!parsed.is_array())
      throw KernelException(KernelError::make(
          ErrorKind::internal, "the context returned messages that are not a JSON array"));
    apply_ephemeral(parsed.get_array(), ephemeral);
    if (final_call)
      apply_ephemeral(parsed.get_array(),
                      {Injection{std::string(loop_limit_reminder()), "user", true}});
    messages = json::serialize(parsed);
  }

  // Members in the order serialising the request object gave before: a provider that hashes
  // or caches request text sees the same bytes.
  std::string request;
  request.reserve(messages.size() + tool_specs_json_.size() + 160);
  request += R"({"messages":)";
  request += messages;
  request += R"(,"stream":true)";
  if (!final_call && has_tools_) {
    request += R"(,"tools":)";
    request += tool_specs_json_;
  }
  if (config_.model && model_applies_)
    append_member(request, "model", json::value(*config_.model));
  if (config_.max_output_tokens)
    append_member(request, "max_output_tokens", json::value(*config_.max_output_tokens));
  if (config_.temperature) append_member(request, "temperature", json::value(*config_.temperature));
  if (config_.reasoning_effort)
    append_member(request, "reasoning_effort", json::value(*config_.reasoning_effort));
  if (config_.extended_thinking)
    append_member(request, "extended_thinking", json::value(*config_.extended_thinking));
  request.push_back('}');
  return request;
}

Task<std::optional<TurnOutcome>> AgentTurn::handle_response(ProviderResult result,
                                                            bool final_call) {
  using Status = ProviderResult::Status;
  if (result.status == Status::Cancelled) co_return TurnOutcome::cancelled(last_text_, iterations_);
  if (result.status == Status::Error) {
    const KernelError &error = result.error;
    notify_with(host_, event::kProviderError, [&] {
      return json::object{{"provider", provider_},
                          {"iteration", iterations_},
                          {"error", to_json(error)},
                          {"retryable", error.retryable},
                          {"status_code", error.status_code ? json::value(*error.status_code)
                                                            : json::value()}};
    });
    co_return TurnOutcome::failed(error, iterations_);
  }

  record_cost(result);
  const amplifier::ChatResponse &response = result.response;
  std::vector<ToolCallBlock> calls = response.tool_calls.empty()
                                         ? amplifier::collect_tool_calls(response.content)
                                         : response.tool_calls;
  notify_with(host_, event::kProviderResponse, [&] {
    return json::object{{"provider", provider_},
                        {"iteration", iterations_},
                        {"usage", response.usage ? json::value(to_json(*response.usage))
                                                 : json::value()},
                        {"tool_calls", tool_calls_json(calls)}};
  });

  // A long answer is in memory several times over at this point: the parsed response is done
  // with once its text (moved out) and calls are out, and the message once it is stored.
  last_text_ = result.response.take_text();
  result.response.content = {};
  {
    // The assistant message goes first, so every tool result stored after it has its call.
    json::object message = assistant_message(std::move(result.response_json), calls);
    if (!message.at("content").get_array().empty()) {
      store(message);
      unanswered_calls_ = calls;
    }
  }
  if (calls.empty()) {
    if (last_text_.empty()) co_return TurnOutcome::incomplete(last_text_, iterations_);
    if (!final_call && held_at_stop()) co_return std::nullopt;
    co_return TurnOutcome::answered(std::move(last_text_), iterations_);
  }
  if (final_call) {
    // The final call offered no tools; a provider that still asks for some gets them refused.
    for (const auto &call : calls)
      store(tool_result_message(
          not_run_outcome(call, "the iteration limit for this turn was reached.")));
    unanswered_calls_.clear();
    co_return TurnOutcome::incomplete(last_text_, iterations_);
  }
  if (auto ended = co_await run_tools(std::move(calls)))
    co_return TurnOutcome::incomplete(std::move(*ended), iterations_);
  co_return std::nullopt;
}

// turn:stop: a hook may keep the turn going when the model would stop (Claude Code's Stop
// hook: "decision: block" with the reason the model is to act on). The reason goes into the
// conversation as a user message, so the next call answers it. Bounded: after
// kMaxStopContinuations holds in one turn it ends anyway (said in the log), as it does at
// the iteration limit.
bool AgentTurn::held_at_stop() {
  if (!host_.has_hook_handlers(event::kTurnStop)) return false;
  HookOutcome outcome = emit_spliced(host_, event::kTurnStop, [&](SplicedJson &spliced) {
    return json::object{{"response", spliced.stand_in(last_text_)},
                        {"iteration", iterations_},
                        {"stop_hook_active", stop_continuations_ > 0},
                        {"continuations", stop_continuations_}};
  });
  // Only an explicit deny holds the turn; an unanswered question never keeps a model working.
  if (outcome.action != "deny" || outcome.end_turn) return false;
  if (stop_continuations_ >= event::kMaxStopContinuations) {
    host_.warn("turn:stop: a hook kept the turn going " +
               std::to_string(event::kMaxStopContinuations) +
               " times this turn; the turn ends here (" + outcome.deny_reason() + ")");
    return false;
  }
  ++stop_continuations_;
  store(text_message("user", outcome.reason.empty()
                                 ? std::string("A hook asked you to continue before stopping.")
                                 : outcome.reason));
  absorb(outcome);
  return true;
}

void AgentTurn::record_cost(ProviderResult &result) {
  json::value &metadata_value = result.response_json["metadata"];
  if (!metadata_value.is_object()) metadata_value = json::object{};
  json::object &metadata = metadata_value.get_object();
  auto string_of = [&](std::string_view key, std::string_view otherwise) {
    const json::value *v = metadata.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string(otherwise);
  };
  const std::string module = string_of("provider", provider_);
  const std::string model = string_of("model", "");
  const std::optional<amplifier::Usage> &usage = result.response.usage;
  cost::CallCost call = ledger_.record_call(module, model, usage ? to_json(*usage) : json::object{},
                                            /*usage_reported=*/usage.has_value());
  turn_totals_.add(call);
  json::object call_json = cost::to_json(call);
  const cost::Ledger ledger_now = ledger_.snapshot();
  // Stored small: every stored message goes into every later request. The answer's metadata
  // already names its provider and model, and its usage has the tokens.
  if (usage) metadata["usage"] = to_json(*usage);
  json::object stored_cost{{"usd", call_json.at("usd")}};
  if (!call.usd) stored_cost["cost_unknown"] = true;
  metadata["cost"] = std::move(stored_cost);
  metadata["ledger"] = cost::to_stored_json(ledger_now);
  notify_with(host_, event::kLedgerUpdate, [&] {
    return json::object{{"provider", provider_},
                        {"model", model},
                        {"call", call_json},
                        {"turn", cost::to_json(turn_totals_)},
                        {"ledger", cost::to_json(ledger_now)}};
  });
  for (const auto &warning : ledger_.new_warnings())
    notify_with(host_, event::kBudgetWarning, [&] {
      json::object payload = cost::to_json(warning);
      payload["fraction"] = warning.fraction();
      payload["budget"] = cost::to_json(ledger_.budget());
      return payload;
    });
}

// A delegate's result carries its child session's report (its ledger, children included):
// rolled up into this session's `children` (the model is never shown it). Trust: any tool could return a report; it can only add to the totals
// (negative or malformed figures read as 0), so at worst a budget is reached early.
bool AgentTurn::take_child_report(ToolOutcome &outcome) {
  const json::object *report = outcome.report.if_object();
  const json::value *spent = report ? report->if_contains("spent") : nullptr;
  if (spent) {
    const cost::Totals child = cost::totals_from_json(*spent);
    ledger_.record_child(child);
    children_spent_.add(child);
  }
  outcome.report = nullptr;
  return spent != nullptr;
}

cost::Totals AgentTurn::spent() const {
  cost::Totals out = turn_totals_;
  out.add(children_spent_);
  return out;
}

json::object AgentTurn::ledger_json() const { return cost::to_stored_json(ledger_.snapshot()); }

TurnOutcome AgentTurn::over_budget(const cost::BudgetMeasure &limit) {
  json::object payload = cost::to_json(limit);
  notify_with(host_, event::kBudgetExceeded, [&] {
    json::object event = payload;
    event["budget"] = cost::to_json(ledger_.budget());
    event["ledger"] = cost::to_json(ledger_.snapshot());
    return event;
  });
  return TurnOutcome::budget_exceeded(std::move(payload), iterations_);
}

Task<std::optional<std::string>> AgentTurn::run_tools(std::vector<ToolCallBlock> calls) {
  ToolBatch batch =
      co_await run_tool_batch(host_, signal_, calls, tool_names_, config_.cancel_grace);
  for (auto &outcome : batch.outcomes) {
    const bool child_spent = take_child_report(outcome);
    limit_result(outcome);
    json::object message = tool_result_message(outcome);
    if (child_spent) message["metadata"] = json::object{{"ledger", ledger_json()}};
    store(message);
  }
  unanswered_calls_.clear();
  // Injections from tool hooks follow the results: between a tool call and its result they
  // would break the pairing providers require.
  injections_to_store_.insert(injections_to_store_.end(), batch.to_store.begin(), batch.to_store.end());
  store_injections();
  ephemeral_for_next_request_.insert(ephemeral_for_next_request_.end(),
                                     batch.for_next_request.begin(), batch.for_next_request.end());
  co_return std::move(batch.end_turn);
}

// After tool:post, so hooks see (and may keep) the whole result; before the context, which
// would otherwise send all of it with every later request.
void AgentTurn::limit_result(ToolOutcome &outcome) {
  const auto cut = limit_tool_output(outcome, config_.max_tool_result_chars);
  if (!cut) return;
  notify_with(host_, event::kToolResultCut, [&] {
    return json::object{{"tool_name", outcome.tool_name},
                        {"tool_call_id", outcome.tool_call_id},
                        {"original_chars", cut->original_chars},
                        {"kept_chars", cut->kept_chars},
                        {"max_tool_result_chars", config_.max_tool_result_chars}};
  });
}

amp_cancel_level AgentTurn::cancel_level() {
  signal_->raise(host_.cancel_state(call_));
  return signal_->level();
}

void AgentTurn::absorb(const HookOutcome &outcome) {
  sort_injections(outcome, injections_to_store_, ephemeral_for_next_request_);
  store_injections();
}

void AgentTurn::store(const json::object &message) {
  host_.context_add(json::serialize(message));
  const json::value *role = message.if_contains("role");
  last_stored_role_ = role && role->is_string() ? std::string(role->get_string()) : std::string();
}

void AgentTurn::store_injections() {
  for (const auto &injection : injections_to_store_)
    store(text_message(injection.role, injection.text));
  injections_to_store_.clear();
}

// Leaves the transcript valid for the next turn whatever happened: every stored tool call
// gets a result, and a turn that stored anything ends with an assistant message, so the next
// prompt never follows a user or tool message (two user turns in a row are rejected by some
// providers; a tool call without a result by all of them).
void AgentTurn::close_transcript(const TurnOutcome &outcome) noexcept {
  try {
    for (const auto &call : unanswered_calls_)
      store(tool_result_message(
          not_run_outcome(call, "the turn ended before this tool call ran.")));
    unanswered_calls_.clear();
    if (last_stored_role_.empty() || last_stored_role_ == "assistant") return;
    json::object note = text_message("assistant", closing_note(outcome));
    note["metadata"] = json::object{{"ledger", ledger_json()}};
    store(note);
  } catch (const std::exception &e) {
    host_.error(std::string("could not close the transcript: ") + e.what());
  }
}

}  // namespace amplifier::orchestrator
