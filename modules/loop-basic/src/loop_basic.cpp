// loop-basic: the reference agent loop as an orchestrator module.
//
// Threads: the host calls execute() on a worker thread dedicated to the turn, and the whole
// turn runs there (hooks, context, provider calls, tool batches). Provider stream events are
// forwarded as content_block events from the sink callbacks, on the provider's threads, as
// they arrive. cancel() comes from the canceller's thread and only raises the turn's
// TurnSignal, which wakes whatever the turn thread is waiting for.
#include "basic_turn.hpp"

#include "amplifier/errors.hpp"

#include <boost/json/object.hpp>

namespace loop_basic {
namespace {

namespace json = boost::json;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;

constexpr const char *kModuleId = "loop-basic";

std::string read_prompt(std::string_view prompt_json) {
  json::value input = amplifier::parse_json(prompt_json);
  const json::object *o = input.if_object();
  const json::value *prompt = o ? o->if_contains("prompt") : nullptr;
  if (!prompt || !prompt->is_string())
    throw KernelException(KernelError::make(ErrorKind::invalid_request,
                                            R"(the turn input must be {"prompt": "<text>"})"));
  return std::string(prompt->get_string());
}

// Announces the lifecycle events this module emits on the observability.events channel, so
// loggers can discover them.
amp_status announce_events(void *, amp_writer *out) {
  amp::sdk::write_to(out, R"(["execution:start","execution:end","orchestrator:complete"])");
  return AMP_OK;
}

class LoopBasic final : public amp::sdk::OrchestratorModule {
 public:
  LoopBasic(amp::sdk::Host host, std::string_view config_json)
      : OrchestratorModule(host),
        config_(orch::read_loop_config(config_json, kModuleId, this->host())) {
    this->host().contribute("observability.events", kModuleId, &announce_events, nullptr);
  }

  void execute(amp_call_id call, std::string_view prompt_json) override {
    auto signal = turns_.begin(call);
    std::string prompt;
    orch::TurnOutcome outcome;
    try {
      prompt = read_prompt(prompt_json);
      outcome = BasicTurn(host(), config_, signal, call).run(prompt);
    } catch (const KernelException &e) {
      outcome = orch::TurnOutcome::failed(e.error(), 0);
    } catch (const std::exception &e) {
      outcome = orch::TurnOutcome::failed(KernelError::make(ErrorKind::internal, e.what()), 0);
    }
    turns_.end(call);
    orch::report_turn_end(host(), call, kModuleId, prompt, outcome);
  }

  void cancel(amp_call_id call, amp_cancel_level level) override { turns_.cancel(call, level); }

 private:
  const orch::LoopConfig config_;
  orch::ActiveTurns turns_;
};

}  // namespace
}  // namespace loop_basic

AMP_DEFINE_MODULE(loop_basic::LoopBasic, "loop-basic", "1.0.0",
                  "The reference agent loop: provider calls, parallel tools, hooks, cancellation")
