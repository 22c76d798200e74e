// The module under test mounted for calls, with what the call checks send it:
//   provider      a small ChatRequest, the provider configured offline (offline_provider.hpp);
//   tool          its first tool with an input that is not an object: the checks must never
//                 make a tool act (write, delete, run commands), so every input they send is
//                 one a tool has to refuse;
//   orchestrator  a prompt, with context-simple and provider-mock (config `mock_config`)
//                 mounted beside it.
#pragma once
#include "call_tracker.hpp"
#include "checks.hpp"
#include "offline_provider.hpp"
#include "probe_kernel.hpp"

#include <boost/json/value.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace amplifier::host::validate {

// Why a check cannot run on this module (reported as SKIP, not as a failure).
class NotApplicable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CallSubject {
  std::unique_ptr<ClosedPort> port;  // providers: the endpoint they are given
  std::unique_ptr<ProbeKernel> probe;
  MountedModule *module = nullptr;
  amp_module_kind kind = AMP_KIND_HOOK;
  CallStarter start;
  std::string input;               // a well-formed input (for tools: one to refuse, see above)
  std::string invalid_json_input;  // truncated JSON
  boost::json::value description;  // providers: ProviderInfo; tools: the real ToolSpec list
  std::vector<std::string> endpoint_keys;  // providers: the fields pointed at the closed port
};

// A provider under test mounted with `base`, or, when its create refuses that (a provider
// that requires its endpoint), with generic_offline_config(base, endpoint). `used` gets the
// config that worked, `refusal` why `base` did not ("" when it did).
MountedModule &mount_provider(ProbeKernel &probe, const std::filesystem::path &file,
                              const boost::json::object &base, const std::string &endpoint,
                              boost::json::object &used, std::string &refusal);

// The kind of the module in `file`, as its descriptor says.
amp_module_kind kind_of(const std::filesystem::path &file);

// Mounts the module for calls; an orchestrator gets tool-filesystem (reading "." only) too
// when `with_tool`. Throws NotApplicable (a kind without calls, a tool module without tools,
// a helper module that is not installed) or ModuleLoadError.
CallSubject make_call_subject(const CheckContext &context,
                              const boost::json::object &mock_config = {}, bool with_tool = false);

// Runs `fn` as check `check`: its result, FAIL with the exception's message, or SKIP for
// NotApplicable.
CheckResult guarded_check(const std::string &check, const std::function<CheckResult()> &fn);

}  // namespace amplifier::host::validate
