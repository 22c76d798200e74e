// The plan `amplifier run` uses without --plan.
#pragma once
#include <string>

namespace amplifier::host {
struct DefaultPlan {
  std::string yaml;
  std::string description;  // one line saying what it runs on
};
// Offline on provider-mock; later issues switch to a vendor provider when its key is set.
DefaultPlan default_plan();
}  // namespace amplifier::host
