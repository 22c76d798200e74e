// crash-tool: tools that kill their process, for tests of `isolation: process`.
//   abort   calls std::abort() (SIGABRT)
//   leak    allocates and touches memory without bound, never checking: under a memory limit
//           malloc fails and the write through its null result kills the process
//   echo    answers {"echo": input}, and the pid of its process
//   forge   writes a forged frame header announcing a 100 MiB frame onto the module host's
//           socket to the host (fd 3), then sleeps: a hostile module (the host must not wait
//           for, or buffer, the frame)
//   big     answers an output of input.bytes bytes
// `abort` and `leak` fault only while the file `marker` (config) does not exist, and create
// it; without `marker` they fault every time. Never mount it in process: it kills the host.
#include "test_module_support.hpp"

#include "test_module_config.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace {
class CrashTool final : public amp::sdk::ToolModule {
 public:
  CrashTool(amp::sdk::Host host, std::string_view config) : ToolModule(host) {
    marker_ = amp_test::TestConfig(config).text("marker");
  }
  std::string list_tools() override {
    return R"([{"name":"abort","description":"Aborts.","parameters":{"type":"object"}},)"
           R"({"name":"leak","description":"Allocates without bound.","parameters":{"type":"object"}},)"
           R"({"name":"echo","description":"Echoes.","parameters":{"type":"object"}},)"
           R"({"name":"forge","description":"Forges a frame.","parameters":{"type":"object"}},)"
           R"({"name":"big","description":"A big answer.","parameters":{"type":"object"}}])";
  }
  void execute(amp_call_id call, std::string_view tool, std::string_view input) override {
    if (tool == "abort" && amp_test::fault_now(marker_)) std::abort();
    if (tool == "leak" && amp_test::fault_now(marker_)) leak();
    if (tool == "forge") forge();
    if (tool == "big") {
      auto bytes = amp_test::TestConfig(input).integer("bytes", 0);
      std::string output = R"({"success":true,"output":")" + std::string(std::size_t(bytes), 'x') +
                           R"("})";
      host().call_finish(call, AMP_OK, output);
      return;
    }
    std::string output = R"({"success":true,"output":{"echo":)" +
                         std::string(input.empty() ? std::string_view("null") : input) +
                         R"(,"pid":)" + std::to_string(::getpid()) + "}}";
    host().call_finish(call, AMP_OK, output);
  }

 private:
  [[noreturn]] static void leak() {
    constexpr std::size_t kChunk = 8 << 20;
    for (;;) {
      auto *block = static_cast<char *>(std::malloc(kChunk));
      std::memset(block, 0x5a, kChunk);  // null once the limit is reached: SIGSEGV
    }
  }
  [[noreturn]] static void forge() {
    constexpr int kSocketToHost = 3;  // amplifier-module-host's end of the socketpair
    const std::uint32_t announced = 100u << 20;
    (void)!::write(kSocketToHost, &announced, sizeof announced);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
  }
  std::string marker_;
};
}  // namespace

AMP_DEFINE_MODULE(CrashTool, "crash-tool", "1.0.0",
                  "Test module: tools that abort or allocate without bound")
