// loop-streaming: the agent loop for streaming providers. The loop is orchestrator-core's
// AgentTurn, shared with loop-basic (threads and waits: agent_loop_module.hpp): every
// content_block event is forwarded to the hooks from the provider's thread as it arrives,
// one response's tool calls run in parallel under one parallel_group_id. Its policy adds
// pacing between provider calls (min_delay_between_calls_ms) and extended_thinking.
#include "amplifier/orchestrator/agent_loop_module.hpp"

namespace loop_streaming {
namespace {

namespace orch = amplifier::orchestrator;

constexpr orch::LoopPolicy kPolicy{"loop-streaming", /*streaming_options=*/true};

class LoopStreaming final : public orch::AgentLoopModule {
 public:
  LoopStreaming(amp::sdk::Host host, std::string_view config_json)
      : AgentLoopModule(host, config_json, kPolicy) {}
};

}  // namespace
}  // namespace loop_streaming

AMP_DEFINE_MODULE(loop_streaming::LoopStreaming, "loop-streaming", "1.0.0",
                  "The streaming agent loop: live content blocks, parallel tools, pacing, approvals")
