// bad-host-symbol: a tool module that calls `readline` without linking the library that
// defines it (built with -z undefs). It loads in the amplifier host only because the host
// itself links libedit; in another host it would not load at all. `module validate` must
// name the symbol (unresolved-symbols).
#include "test_module_support.hpp"

extern "C" char *readline(const char *prompt);  // libedit's, deliberately not linked

namespace {
class HostSymbolTool final : public amp::sdk::ToolModule {
 public:
  HostSymbolTool(amp::sdk::Host host, std::string_view) : ToolModule(host) {}
  std::string list_tools() override { return "[]"; }
  void execute(amp_call_id call, std::string_view, std::string_view) override {
    if (char *line = readline(">")) host().call_fail(call, "internal", line);
  }
};
}  // namespace

AMP_DEFINE_MODULE(HostSymbolTool, "bad-host-symbol", "1.0.0",
                  "Test module: needs a symbol only the host process defines")
