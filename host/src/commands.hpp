// The `amplifier` subcommands. Each registers itself on the CLI11 app; the callback it sets
// stores the process exit code in `exit_code`.
#pragma once
#include <CLI/App.hpp>

namespace amplifier::host {
void add_run_command(CLI::App &app, int &exit_code);
void add_modules_command(CLI::App &app, int &exit_code);
void add_plan_command(CLI::App &app, int &exit_code);
}  // namespace amplifier::host
