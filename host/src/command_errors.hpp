// How a subcommand reports what went wrong: one "amplifier: error:" line per problem on stderr
// and exit code 1.
#pragma once
#include <functional>

namespace amplifier::host {

// Runs `fn`, storing its exit code; a MountPlanError (each problem) or another exception is
// reported and makes the code 1.
void run_reporting(int &exit_code, const std::function<int()> &fn);

}  // namespace amplifier::host
