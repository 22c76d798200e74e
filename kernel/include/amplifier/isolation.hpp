// `isolation: process`: a module run in a process of its own (amplifier-module-host), behind a
// proxy that has the module's own descriptor and kind table. The kernel, the orchestrator and
// the other modules cannot tell it from a module loaded in process; a module that segfaults,
// aborts, hangs past its deadline or runs out of memory takes only its process down.
//
// When the process dies, every call it was serving ends with a typed error (`module_crashed`,
// or `timeout` for the call that overran its deadline), the calls it had started are
// cancelled, `module:crashed` is emitted, and the session goes on. The next call to the
// module restarts it (create with the same config, session_ready if it had run), at most
// `restarts_per_minute` times a minute; after that it stays down and every call says why.
#pragma once
#include "amplifier/module_loader.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>

namespace amplifier {

struct IsolationOptions {
  // Deadline of every call the host makes to the module, 0 for none. Past it the call ends
  // with a `timeout` error and the process is killed (then restarted on the next call).
  std::chrono::milliseconds call_timeout{0};
  // The process's address-space limit (RLIMIT_AS) in MiB, 0 for none.
  std::size_t memory_limit_mb = 0;
  // The largest message either side may send, in MiB (1 to 1024): a frame whose header says
  // more ends the process as a broken peer, before anything of it is buffered, and a call
  // whose input or answer is larger fails with a clear error.
  std::size_t max_message_mb = 64;
  // How many restarts in any 60 seconds before the module stays down.
  int restarts_per_minute = 3;
  // The plan marks the module required: a hook handler of it that cannot run (the process
  // died or timed out) answers "deny" instead of being skipped, so a required policy hook
  // fails closed.
  bool required = false;
};

// Starts `file` in its own process and loads it there. Returns a module whose instance lives
// in that process. Throws ModuleLoadError when the helper program cannot be found or started,
// or when the module cannot be loaded there (with the same reason an in-process load gives).
std::shared_ptr<const LoadedModule> load_isolated(const std::filesystem::path &file,
                                                  IsolationOptions options);

// The helper program that hosts isolated modules: AMPLIFIER_MODULE_HOST when set, else the one
// installed beside the host, else (for programs of the build tree) the build tree's.
std::filesystem::path module_host_program();

}  // namespace amplifier
