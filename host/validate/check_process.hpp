// The two sides of a check's process: the validator starts one per group of checks
// (structural groups, then each behavioral check), the process runs the group and reports.
#pragma once
#include "check_result.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace amplifier::host::validate {

// Child side: runs `group` ("resolve", "elf", "descriptor", "instance" or a behavioral
// check's name) on `target` (a module id for "resolve", else a file), reports on the channel
// fd, and ends the process at once: module threads may still be running, and nothing of the
// process is needed any more.
[[noreturn]] void run_check_process(const std::string &group, const std::string &target,
                                    const boost::json::object &config);

// Parent side: what a run of the validator shares with every check's process.
struct CheckProcessOptions {
  std::filesystem::path scratch_dir;  // working directory and home of every check process
  boost::json::object config;         // --config
  std::chrono::milliseconds budget{30000};
};

struct GroupOutcome {
  std::vector<CheckResult> results;
  boost::json::object facts;
};

// Runs `group` on `target` in a process of its own. `expected` lists the checks the group
// runs: one the process was running when it crashed, hung or exited fails with that reason;
// the ones after it are skipped.
GroupOutcome run_group(const std::string &group, const std::string &target,
                       const std::vector<std::string> &expected,
                       const CheckProcessOptions &options);

}  // namespace amplifier::host::validate
