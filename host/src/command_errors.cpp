#include "command_errors.hpp"

#include "amplifier/mount_plan.hpp"

#include <cstdio>
#include <exception>

namespace amplifier::host {

void run_reporting(int &exit_code, const std::function<int()> &fn) {
  try {
    exit_code = fn();
  } catch (const MountPlanError &e) {
    for (const auto &p : e.problems())
      std::fprintf(stderr, "amplifier: error: %s\n", p.to_string().c_str());
    exit_code = 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "amplifier: error: %s\n", e.what());
    exit_code = 1;
  }
}

}  // namespace amplifier::host
