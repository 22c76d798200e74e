#include "amplifier/orchestrator/agent_loop_module.hpp"

#include "amplifier/errors.hpp"

#include <boost/json/object.hpp>

namespace amplifier::orchestrator {
namespace {

namespace json = boost::json;

TurnInput read_turn_input(std::string_view prompt_json) {
  json::value input = parse_json(prompt_json);
  const json::object *o = input.if_object();
  const json::value *prompt = o ? o->if_contains("prompt") : nullptr;
  if (!prompt || !prompt->is_string())
    throw KernelException(KernelError::make(ErrorKind::invalid_request,
                                            R"(the turn input must be {"prompt": "<text>"})"));
  TurnInput turn{std::string(prompt->get_string()), std::nullopt, std::nullopt};
  if (const json::value *mode = o->if_contains("mode"); mode && mode->is_string())
    turn.mode = std::string(mode->get_string());
  if (const json::value *route = o->if_contains("route")) {
    if (!route->is_string() || route->get_string().empty())
      throw KernelException(KernelError::make(
          ErrorKind::invalid_request, "the turn's \"route\" must name a role of the plan's routing"));
    turn.route = std::string(route->get_string());
  }
  return turn;
}

// Announces the lifecycle events loop modules emit on the observability.events channel, so
// loggers can discover them.
amp_status announce_events(void *, amp_writer *out) {
  amp::sdk::write_to(
      out, R"(["execution:start","execution:end","orchestrator:complete","tool:result_cut",)"
          R"("ledger:update","budget:warning","budget:exceeded","turn:stop"])");
  return AMP_OK;
}

}  // namespace

AgentLoopModule::AgentLoopModule(amp::sdk::Host host, std::string_view config_json,
                                 const LoopPolicy &policy)
    : OrchestratorModule(host),
      policy_(policy),
      config_(read_loop_config(config_json, policy, this->host())),
      pacer_(config_.min_delay_between_calls),
      ledger_(SessionLedger::for_session(this->host(), config_.budget)) {
  this->host().contribute("observability.events", policy_.module_id, &announce_events, nullptr);
}

AgentLoopModule::~AgentLoopModule() { turns_.stop_all(); }

void AgentLoopModule::execute(amp_call_id call, std::string_view prompt_json) {
  auto signal = turns_.begin(host(), call);
  TurnInput input;
  try {
    input = read_turn_input(prompt_json);
  } catch (const KernelException &e) {
    return end_turn(call, input.prompt, TurnOutcome::failed(e.error(), 0));
  } catch (const std::exception &e) {
    return end_turn(call, input.prompt,
                    TurnOutcome::failed(KernelError::make(ErrorKind::internal, e.what()), 0));
  }
  // Returns as soon as the turn first waits; it goes on on the host's workers.
  spawn(run_turn(call, std::move(input), std::move(signal)));
}

Task<void> AgentLoopModule::run_turn(amp_call_id call, TurnInput input,
                                     std::shared_ptr<TurnSignal> signal) {
  TurnOutcome outcome;
  const std::string prompt = input.prompt;
  {
    AgentTurn turn(host(), config_, pacer_, ledger_, std::move(signal), call);
    outcome = co_await turn.run(std::move(input));  // never throws
    try {
      // For whoever started this session (a parent rolls up `spent`, this turn's).
      outcome.report = json::object{{"ledger", cost::to_json(ledger_.snapshot())},
                                    {"spent", cost::to_json(turn.spent())}};
    } catch (...) {  // out of memory: the turn still ends, without its report
    }
  }
  end_turn(call, prompt, outcome);
}

void AgentLoopModule::end_turn(amp_call_id call, std::string_view prompt,
                               const TurnOutcome &outcome) noexcept {
  report_turn_end(host(), call, policy_.module_id, prompt, outcome);
  turns_.end(call);  // last: from here on the instance may be destroyed
}

void AgentLoopModule::cancel(amp_call_id call, amp_cancel_level level) {
  turns_.cancel(call, level);
}

}  // namespace amplifier::orchestrator
