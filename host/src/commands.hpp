// The `amplifier` subcommands. Each registers itself on the CLI11 app; the callback it sets
// stores the process exit code in `exit_code`.
#pragma once
#include <CLI/App.hpp>

#include <filesystem>

namespace amplifier {
struct MountPlan;
}

namespace amplifier::host {
void add_run_command(CLI::App &app, int &exit_code);
void add_modules_command(CLI::App &app, int &exit_code);
void add_plan_command(CLI::App &app, int &exit_code);
void add_sessions_command(CLI::App &app, int &exit_code);

// The session store `plan`'s context uses: its `store_dir` config, else the default store
// (the same resolution context-persistent applies).
std::filesystem::path session_store_of(const MountPlan &plan);
}  // namespace amplifier::host
