// bad-throws-tool: a tool module whose execute throws std::runtime_error (tool `explode`).
// The failure must reach the model as an error tool result, not crash the host.
#include "test_module_support.hpp"

#include <stdexcept>

namespace {
class ThrowingTool final : public amp::sdk::ToolModule {
 public:
  ThrowingTool(amp::sdk::Host host, std::string_view) : ToolModule(host) {}
  std::string list_tools() override {
    return R"([{"name":"explode","description":"Always throws.",)"
           R"("parameters":{"type":"object","properties":{}}}])";
  }
  void execute(amp_call_id, std::string_view, std::string_view) override {
    throw std::runtime_error("bad-throws-tool: the tool exploded");
  }
};
}  // namespace

AMP_DEFINE_MODULE(ThrowingTool, "bad-throws-tool", "1.0.0",
                  "Test module: a tool whose execute throws")
