// bad-orchestrator-deaf: an orchestrator that ignores cancellation. Its execute sleeps for
// `hold_ms` milliseconds (config, default 20000) whatever happens, then finishes the turn and
// returns. The kernel must give up on it after an immediate cancel without waiting that long.
#include "amplifier_sdk.hpp"

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

long hold_from(std::string_view config) {
  const std::string_view key = "\"hold_ms\":";
  const auto at = config.find(key);
  if (at == std::string_view::npos) return 20000;
  return std::strtol(std::string(config.substr(at + key.size())).c_str(), nullptr, 10);
}

class DeafOrchestrator final : public amp::sdk::OrchestratorModule {
 public:
  DeafOrchestrator(amp::sdk::Host host, std::string_view config)
      : OrchestratorModule(host), hold_(hold_from(config)) {}
  void execute(amp_call_id call, std::string_view) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_));
    host().call_finish(call, AMP_OK, R"({"response":"Late.","status":"success"})");
  }
  void cancel(amp_call_id, amp_cancel_level) override {}  // not listening

 private:
  long hold_;
};

}  // namespace

AMP_DEFINE_MODULE(DeafOrchestrator, "bad-orchestrator-deaf", "1.0.0",
                  "Test module: an orchestrator that ignores cancellation")
