// The `amplifier` subcommands. Each registers itself on the CLI11 app; the callback it sets
// stores the process exit code in `exit_code`.
#pragma once
// All of CLI11, not only App.hpp: App makes a ConfigTOML and a Formatter, whose virtual
// functions are defined inline in their own headers; a program that links host code but not
// main.cpp (the tests, through amp_host) would miss their vtables.
#include <CLI/CLI.hpp>

#include "plan_loading.hpp"

#include <filesystem>

#include <string>

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
void add_serve_command(CLI::App &app, int &exit_code);  // cmd_serve.cpp
void add_trust_command(CLI::App &app, int &exit_code);
void add_recipe_command(CLI::App &app, int &exit_code);  // cmd_recipe.cpp

// Shared by run and chat (resolve_plan and the rest: plan_loading.hpp, in the runtime library).
// At a terminal, when `folder` has a `.amplifier/` with MCP servers or agents and the operator
// has neither trusted nor declined it: asks once, and records the answer (cmd_trust.cpp).
void ask_folder_trust_once(const std::filesystem::path &folder);
// The interactive session (amplifier chat; amplifier run without a prompt on a terminal).
// Returns the exit code.
int run_chat(const std::string &plan_file, const std::string &mode = "",
             const std::string &resume_id = "");

}  // namespace amplifier::host
