// What every way of running a session needs before it starts and after a turn: the plan (a
// file, or the built-in default), its warnings, a failed turn in one line, the plan as YAML,
// the session store a plan's context uses. Used by run, chat and serve.
#pragma once
#include <filesystem>
#include <string>

namespace amplifier {
struct MountPlan;
struct TurnResult;
}  // namespace amplifier

namespace amplifier::host {

// The plan in `plan_file`, or the built-in default (announced on stderr) when it is empty:
// on the provider of the user's settings.yaml when it names one (default_plan.hpp);
// `with_display` as for default_plan.
MountPlan resolve_plan(const std::string &plan_file, bool with_display);
void print_plan_warnings(const MountPlan &plan);
// "kind: message" for a failed turn.
std::string error_message(const TurnResult &result);
// A plan as YAML that loads back to the same plan (`plan show`).
std::string mount_plan_yaml(const MountPlan &plan);
// The session store `plan`'s context uses: its `store_dir` config, else the default store
// (the same resolution context-persistent applies).
std::filesystem::path session_store_of(const MountPlan &plan);

}  // namespace amplifier::host
