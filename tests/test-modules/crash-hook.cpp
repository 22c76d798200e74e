// crash-hook: a hook that hangs or crashes on one event, for tests of `isolation: process`.
// Config: `event` (default "tool:pre"), `fault` ("hang" sleeps forever, "segfault"),
// `marker` (fault only while this file does not exist, and create it; none: always),
// `pid_file` (writes the process id there at create). It says hello on stderr at create, so
// tests can see the host log a module's output under its name. Otherwise it answers
// "continue".
#include "test_module_support.hpp"

#include "test_module_config.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unistd.h>

namespace {
class CrashHook final : public amp::sdk::HookModule {
 public:
  CrashHook(amp::sdk::Host host, std::string_view config) : HookModule(host) {
    const amp_test::TestConfig values(config);
    const std::string event = values.text("event", "tool:pre");
    fault_ = values.text("fault", "hang");
    marker_ = values.text("marker");
    if (std::string pid_file = values.text("pid_file"); !pid_file.empty())
      if (std::FILE *f = std::fopen(pid_file.c_str(), "w")) {
        std::fprintf(f, "%d\n", int(::getpid()));
        std::fclose(f);
      }
    std::fprintf(stderr, "crash-hook: hello from pid %d\n", int(::getpid()));
    std::fflush(stderr);
    this->host().hook_register(event, 0, "crash-hook", &CrashHook::on_event, this);
  }

 private:
  static amp_status on_event(void *self, amp_str, amp_str, amp_writer *) {
    auto &hook = *static_cast<CrashHook *>(self);
    if (amp_test::fault_now(hook.marker_)) {
      if (hook.fault_ == "segfault") amp_test::segfault_now();
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    return AMP_OK;
  }
  std::string fault_;
  std::string marker_;
};
}  // namespace

AMP_DEFINE_MODULE(CrashHook, "crash-hook", "1.0.0",
                  "Test module: a hook that hangs or crashes on one event")
