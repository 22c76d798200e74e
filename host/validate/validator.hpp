// `amplifier module validate`: which checks apply to a module, run in which order, each group
// in a process of its own (check_process.hpp).
#pragma once
#include "check_result.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace amplifier::host::validate {

struct ValidateOptions {
  std::string target;  // a path to a .so (contains '/' or ends in .so) or a module id
  bool behavioral = false;
  boost::json::object config;               // the config instances are created with
  std::chrono::milliseconds budget{30000};  // per check process
};

// Every check that applies, in order: structural ones always, behavioral ones for the
// module's kind when asked. Checks that cannot run (the module does not load) are SKIP with
// the reason.
std::vector<CheckResult> validate_module(const ValidateOptions &options);

// Whether `target` names a file rather than a module id.
bool is_file_target(const std::string &target);

}  // namespace amplifier::host::validate
