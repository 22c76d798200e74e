// loop-basic: the reference agent loop as an orchestrator module. The loop itself is
// orchestrator-core's AgentTurn (threads and waits: agent_loop_module.hpp); loop-basic's
// policy is the plain one, without loop-streaming's pacing and extended-thinking options.
#include "amplifier/orchestrator/agent_loop_module.hpp"

namespace loop_basic {
namespace {

namespace orch = amplifier::orchestrator;

constexpr orch::LoopPolicy kPolicy{"loop-basic", /*streaming_options=*/false};

class LoopBasic final : public orch::AgentLoopModule {
 public:
  LoopBasic(amp::sdk::Host host, std::string_view config_json)
      : AgentLoopModule(host, config_json, kPolicy) {}
};

}  // namespace
}  // namespace loop_basic

AMP_DEFINE_MODULE(loop_basic::LoopBasic, "loop-basic", "1.0.0",
                  "The reference agent loop: provider calls, parallel tools, hooks, cancellation")
