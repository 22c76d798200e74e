// bad-tool-schema: a tool whose `parameters` is not a valid JSON Schema (a property of the
// unknown type "strng"). Otherwise correct: it refuses bad input with an error result.
#include "test_module_support.hpp"

namespace {
class BadSchemaTool final : public amp::sdk::ToolModule {
 public:
  BadSchemaTool(amp::sdk::Host host, std::string_view) : ToolModule(host) {}
  std::string list_tools() override {
    return R"([{"name":"shout","description":"Upper-cases a text.","parameters":)"
           R"({"type":"object","properties":{"text":{"type":"strng"}},"required":["text"]}}])";
  }
  void execute(amp_call_id call, std::string_view, std::string_view) override {
    host().call_finish(call, AMP_OK,
                       R"({"success":false,"output":null,"error":{"message":"bad input"}})");
  }
};
}  // namespace

AMP_DEFINE_MODULE(BadSchemaTool, "bad-tool-schema", "1.0.0",
                  "Test module: a tool spec whose parameters are not a valid JSON Schema")
