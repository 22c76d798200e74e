// bad-orchestrator-idle: an orchestrator that ends every turn at once with a canned answer,
// without asking a provider or running a tool. The protocol is kept (one terminal event per
// turn); the turn itself is not done (orchestrator-turn).
#include "amplifier_sdk.hpp"

namespace {
class IdleOrchestrator final : public amp::sdk::OrchestratorModule {
 public:
  IdleOrchestrator(amp::sdk::Host host, std::string_view) : OrchestratorModule(host) {}
  void execute(amp_call_id call, std::string_view) override {
    host().call_finish(call, AMP_OK, R"({"response":"Done.","status":"success"})");
  }
};
}  // namespace

AMP_DEFINE_MODULE(IdleOrchestrator, "bad-orchestrator-idle", "1.0.0",
                  "Test module: an orchestrator that answers without doing the turn")
