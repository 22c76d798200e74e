// hooks-test-slow-contributor: contributes to channel "test.slow" with a contributor that
// takes 300 ms and then reports whether the instance was destroyed meanwhile ("destroyed")
// or not ("alive"). Unmounting must wait for a contributor that is running.
#include "amplifier_sdk.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace {

std::atomic<bool> g_destroyed{false};

class SlowContributor final : public amp::sdk::HookModule {
 public:
  SlowContributor(amp::sdk::Host host, std::string_view) : HookModule(host) {
    g_destroyed = false;
    if (host.contribute("test.slow", "slow", &SlowContributor::contribute, this) != AMP_OK)
      throw std::runtime_error("contribute failed");
  }
  ~SlowContributor() override { g_destroyed = true; }

 private:
  static amp_status contribute(void *, amp_writer *out) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    amp::sdk::write_to(out, g_destroyed.load() ? "\"destroyed\"" : "\"alive\"");
    return AMP_OK;
  }
};

}  // namespace

AMP_DEFINE_MODULE(SlowContributor, "hooks-test-slow-contributor", "1.0.0",
                  "Test module: a channel contributor that takes 300 ms")
