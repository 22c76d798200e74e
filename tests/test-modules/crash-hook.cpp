// crash-hook: a hook that hangs or crashes on one event, for tests of `isolation: process`.
// Config: `event` (default "tool:pre"), `fault` ("hang" sleeps forever, "segfault"),
// `marker` (fault only while this file does not exist, and create it; none: always),
// `pid_file` (writes the process id there at create). It says hello on stderr at create, so
// tests can see the host log a module's output under its name. Otherwise it answers
// "continue".
#include "test_module_support.hpp"

#include <boost/json/parse.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unistd.h>

namespace {
class CrashHook final : public amp::sdk::HookModule {
 public:
  CrashHook(amp::sdk::Host host, std::string_view config) : HookModule(host) {
    auto parsed = boost::json::parse(config.empty() ? std::string_view("{}") : config);
    std::string event = "tool:pre";
    if (auto *o = parsed.if_object()) {
      event = text(*o, "event", event);
      fault_ = text(*o, "fault", "hang");
      marker_ = text(*o, "marker", "");
      if (std::string pid_file = text(*o, "pid_file", ""); !pid_file.empty())
        if (std::FILE *f = std::fopen(pid_file.c_str(), "w")) {
          std::fprintf(f, "%d\n", int(::getpid()));
          std::fclose(f);
        }
    }
    std::fprintf(stderr, "crash-hook: hello from pid %d\n", int(::getpid()));
    std::fflush(stderr);
    this->host().hook_register(event, 0, "crash-hook", &CrashHook::on_event, this);
  }

 private:
  static std::string text(const boost::json::object &o, std::string_view key,
                          std::string fallback) {
    auto *v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : fallback;
  }
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
