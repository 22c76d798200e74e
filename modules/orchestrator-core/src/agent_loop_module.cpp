#include "amplifier/orchestrator/agent_loop_module.hpp"

#include "amplifier/errors.hpp"

#include <boost/json/object.hpp>

namespace amplifier::orchestrator {
namespace {

namespace json = boost::json;

std::string read_prompt(std::string_view prompt_json) {
  json::value input = parse_json(prompt_json);
  const json::object *o = input.if_object();
  const json::value *prompt = o ? o->if_contains("prompt") : nullptr;
  if (!prompt || !prompt->is_string())
    throw KernelException(KernelError::make(ErrorKind::invalid_request,
                                            R"(the turn input must be {"prompt": "<text>"})"));
  return std::string(prompt->get_string());
}

// Announces the lifecycle events loop modules emit on the observability.events channel, so
// loggers can discover them.
amp_status announce_events(void *, amp_writer *out) {
  amp::sdk::write_to(out, R"(["execution:start","execution:end","orchestrator:complete"])");
  return AMP_OK;
}

}  // namespace

AgentLoopModule::AgentLoopModule(amp::sdk::Host host, std::string_view config_json,
                                 const LoopPolicy &policy)
    : OrchestratorModule(host),
      policy_(policy),
      config_(read_loop_config(config_json, policy, this->host())),
      pacer_(config_.min_delay_between_calls) {
  this->host().contribute("observability.events", policy_.module_id, &announce_events, nullptr);
}

void AgentLoopModule::execute(amp_call_id call, std::string_view prompt_json) {
  auto signal = turns_.begin(call);
  std::string prompt;
  TurnOutcome outcome;
  try {
    prompt = read_prompt(prompt_json);
    outcome = AgentTurn(host(), config_, pacer_, signal, call).run(prompt);
  } catch (const KernelException &e) {
    outcome = TurnOutcome::failed(e.error(), 0);
  } catch (const std::exception &e) {
    outcome = TurnOutcome::failed(KernelError::make(ErrorKind::internal, e.what()), 0);
  }
  turns_.end(call);
  report_turn_end(host(), call, policy_.module_id, prompt, outcome);
}

void AgentLoopModule::cancel(amp_call_id call, amp_cancel_level level) {
  turns_.cancel(call, level);
}

}  // namespace amplifier::orchestrator
