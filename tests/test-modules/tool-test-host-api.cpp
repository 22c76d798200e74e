// tool-test-host-api: asks the host for what the ABI promises, from wherever the module runs
// (in the host's process or behind `isolation: process`), so a test can hold both to the same
// list: plugin-api/abi.json.
//   host_procs {}   the names of every host function abi.json lists for get_proc, and whether
//                   this module's host answered each: {"NAME": true|false, ...}
//   add_tool {}     from now on the module also lists `grown`, and tells the host so
//                   (tools_changed, from a thread of its own, as the ABI asks); answers the
//                   status tools_changed returned
//   grown {}        answers "grown" (listed only after add_tool)
#include "amplifier_abi_description.h"
#include "amplifier_sdk.hpp"

#include <atomic>
#include <string>
#include <thread>

namespace {

class HostApiProbe : public amp::sdk::ToolModule {
 public:
  HostApiProbe(amp::sdk::Host host, std::string_view) : ToolModule(host) {}

  std::string list_tools() override {
    std::string tools =
        R"([{"name":"host_procs","description":"Which host functions get_proc answers",)"
        R"("parameters":{"type":"object"}},)"
        R"({"name":"add_tool","description":"Lists one tool more, and tells the host",)"
        R"("parameters":{"type":"object"}})";
    if (grown_) tools += R"(,{"name":"grown","description":"Added late","parameters":{"type":"object"}})";
    return tools + "]";
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view) override {
    if (tool == "host_procs") return succeed(call, procs_answered());
    if (tool == "grown") return succeed(call, "\"grown\"");
    if (tool == "add_tool") {
      grown_ = true;
      amp_status status = AMP_ERROR;
      std::thread([&] {
        auto fn = reinterpret_cast<amp_tools_changed_fn>(
            host().api()->get_proc(AMP_PROC_TOOLS_CHANGED));
        status = fn ? fn(host().raw()) : AMP_UNSUPPORTED;
      }).join();
      return succeed(call, "\"tools_changed: " + std::to_string(int(status)) + "\"");
    }
    host().call_fail(call, "not_found", "no tool named " + std::string(tool), AMP_NOT_FOUND);
  }

 private:
  void succeed(amp_call_id call, const std::string &output_json) {
    host().call_finish(call, AMP_OK, R"({"success":true,"output":)" + output_json + "}");
  }

  std::string procs_answered() const {
    std::string answer = "{";
#define AMP_PROBE_PROC(name, NAME, fn_type, since, wire)                                     \
  answer += std::string(answer.size() > 1 ? "," : "") + "\"" NAME "\":" +                     \
            (host().api()->get_proc(NAME) ? "true" : "false");
    AMP_ABI_HOST_PROCS(AMP_PROBE_PROC)
#undef AMP_PROBE_PROC
    return answer + "}";
  }

  std::atomic<bool> grown_{false};
};

}  // namespace

AMP_DEFINE_MODULE(HostApiProbe, "tool-test-host-api", "1.0.0",
                  "Test module: asks the host for every function the ABI describes")
