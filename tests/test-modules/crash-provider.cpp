// crash-provider: a streaming provider that dies of SIGSEGV in the middle of its stream, after
// `deltas_before_crash` text deltas (default 2). With `crash_marker` (a file path) it crashes
// only while that file does not exist (and creates it), so the process that replaces it
// answers: "recovered: <n>" where n counts the calls this process served. Without it, it
// crashes on every call. Only ever mounted with `isolation: process` (tests/isolation).
#include "test_module_support.hpp"

#include "test_module_config.hpp"

#include <atomic>
#include <chrono>
#include <thread>

namespace {
class CrashProvider final : public amp::sdk::ProviderModule {
 public:
  CrashProvider(amp::sdk::Host host, std::string_view config) : ProviderModule(host) {
    const amp_test::TestConfig values(config);
    marker_ = values.text("crash_marker");
    deltas_ = int(values.integer("deltas_before_crash", 2));
  }
  std::string info() override { return amp_test::provider_info_json("crash-provider"); }
  void complete(amp_call_id call, std::string_view) override {
    const int served = ++served_;
    host().call_event(call, R"({"type":"content_block_start","index":0,"block":{"type":"text"}})");
    if (amp_test::fault_now(marker_)) {
      for (int i = 0; i < deltas_; ++i) host().emit_text_delta(call, 0, "partial ");
      // Deltas go out in batches a moment later; a crash that follows them within microseconds
      // may take them along, so this one waits as a real stream would between its pieces.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      amp_test::segfault_now();
    }
    const std::string text = "recovered: " + std::to_string(served);
    host().emit_text_delta(call, 0, text);
    host().call_finish(call, AMP_OK, amp_test::text_response_json(text));
  }

 private:
  std::string marker_;
  int deltas_ = 2;
  std::atomic<int> served_{0};
};
}  // namespace

AMP_DEFINE_MODULE(CrashProvider, "crash-provider", "1.0.0",
                  "Test module: a provider that segfaults mid-stream")
