// A kernel of its own for one check in a check's process: a hook registry, a coordinator, a
// module loader, and a log sink that keeps every kernel line, so the protocol violations the
// call registry detects ("protocol violation by module ...") count against the check.
#pragma once
#include "amplifier/cancellation.hpp"
#include "amplifier/coordinator.hpp"
#include "amplifier/hooks.hpp"
#include "amplifier/module_loader.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace amplifier::host::validate {

// The kernel lines logged while a ProbeKernel lives (one at a time per process).
class LogRecorder {
 public:
  LogRecorder();
  ~LogRecorder();
  LogRecorder(const LogRecorder &) = delete;
  LogRecorder &operator=(const LogRecorder &) = delete;

  // The lines containing `needle`, as "component: message".
  std::vector<std::string> matching(std::string_view needle) const;

 private:
  struct Lines;
  std::shared_ptr<Lines> lines_;
};

class ProbeKernel {
 public:
  ProbeKernel();
  ~ProbeKernel();
  ProbeKernel(const ProbeKernel &) = delete;
  ProbeKernel &operator=(const ProbeKernel &) = delete;

  Coordinator &coordinator() { return *coordinator_; }
  HookRegistry &hooks() { return hooks_; }
  ModuleLoader &loader() { return loader_; }

  // Mounts the module under test from `file`. For providers and tools the kernel sees its
  // description through a filter (see module_proxy.hpp): the checks judge get_info and
  // list_tools themselves, and tool input reaches the tool unvalidated. Throws
  // ModuleLoadError when loading or create fails.
  MountedModule &mount_under_test(const std::filesystem::path &file, boost::json::object config);
  // Mounts a helper module (provider-mock, context-simple, ...) found by id as the host would.
  MountedModule &mount_helper(std::string_view id, const std::string &mount_point,
                              boost::json::object config);

  // "protocol violation by module ..." lines so far.
  std::vector<std::string> protocol_violations() const;
  std::vector<std::string> log_lines_matching(std::string_view needle) const;

 private:
  LogRecorder log_;
  HookRegistry hooks_;
  CancellationToken cancellation_;
  ModuleLoader loader_;
  std::unique_ptr<Coordinator> coordinator_;  // last: unmounts before the rest goes
};

// The mount point of a kind ("providers", "tools", ...).
std::string mount_point_of(amp_module_kind kind);

// Text a module wrote into an amp_writer.
struct TextWriter : amp_writer {
  std::string text;
  TextWriter();
};

}  // namespace amplifier::host::validate
