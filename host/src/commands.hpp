// The `amplifier` subcommands. Each registers itself on the CLI11 app; the callback it sets
// stores the process exit code in `exit_code`.
#pragma once
// All of CLI11, not only App.hpp: App makes a ConfigTOML and a Formatter, whose virtual
// functions are defined inline in their own headers; a program that links host code but not
// main.cpp (the tests, through amp_host) would miss their vtables.
#include <CLI/CLI.hpp>

#include <filesystem>

#include <string>

namespace amplifier {
struct MountPlan;
struct TurnResult;
}

namespace amplifier::host {
void add_run_command(CLI::App &app, int &exit_code);
void add_modules_command(CLI::App &app, int &exit_code);
// `module validate` (cmd_validate.cpp), registered on the `module` subcommand.
void add_module_validate_command(CLI::App &modules, int &exit_code);
// `module install | remove | show` (cmd_module_install.cpp), on the `module` subcommand.
void add_module_install_commands(CLI::App &modules, int &exit_code);
void add_plan_command(CLI::App &app, int &exit_code);
void add_sessions_command(CLI::App &app, int &exit_code);
void add_chat_command(CLI::App &app, int &exit_code);
void add_init_command(CLI::App &app, int &exit_code);
void add_agents_command(CLI::App &app, int &exit_code);
void add_serve_command(CLI::App &app, int &exit_code);  // serve/cmd_serve.cpp
void add_trust_command(CLI::App &app, int &exit_code);

// A plan as YAML that loads back to the same plan (`plan show`; cmd_plan.cpp).
std::string mount_plan_yaml(const MountPlan &plan);

// Shared by run and chat.
// The plan in `plan_file`, or the built-in default (announced on stderr) when it is empty:
// on the provider of the user's settings.yaml when it names one (default_plan.hpp);
// `with_display` as for default_plan.
MountPlan resolve_plan(const std::string &plan_file, bool with_display);
void print_plan_warnings(const MountPlan &plan);
// At a terminal, when `folder` has a `.amplifier/` with MCP servers or agents and the operator
// has neither trusted nor declined it: asks once, and records the answer (cmd_trust.cpp).
void ask_folder_trust_once(const std::filesystem::path &folder);
// "kind: message" for a failed turn.
std::string error_message(const TurnResult &result);
// The interactive session (amplifier chat; amplifier run without a prompt on a terminal).
// Returns the exit code.
int run_chat(const std::string &plan_file);

// The session store `plan`'s context uses: its `store_dir` config, else the default store
// (the same resolution context-persistent applies).
std::filesystem::path session_store_of(const MountPlan &plan);
}  // namespace amplifier::host
