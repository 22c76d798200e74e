// bad-crash-tool: a tool whose execute dies of SIGSEGV. `module validate` must report the
// crash as the failure of the check that was running, and go on with the next check.
#include "test_module_support.hpp"

namespace {
class CrashingTool final : public amp::sdk::ToolModule {
 public:
  CrashingTool(amp::sdk::Host host, std::string_view) : ToolModule(host) {}
  std::string list_tools() override {
    return R"([{"name":"crash","description":"Dies.","parameters":{"type":"object"}}])";
  }
  void execute(amp_call_id, std::string_view, std::string_view) override {
    amp_test::segfault_now();  // on purpose
  }
};
}  // namespace

AMP_DEFINE_MODULE(CrashingTool, "bad-crash-tool", "1.0.0",
                  "Test module: a tool that crashes (SIGSEGV) on execute")
