// `amplifier recipe run FILE | resume RUN_ID | list`: multi-step recipes (recipe.hpp), their
// progress on stderr step by step, the last step's output on stdout.
//
// Exit codes: 0 done, 1 a step failed (or bad input), 3 the recipe's budget is spent, 4 paused
// at an approval gate.
#include "command_errors.hpp"
#include "commands.hpp"
#include "recipe_run.hpp"

#include "amplifier/terminal_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <unistd.h>

namespace amplifier::host {
namespace {

namespace json = boost::json;

constexpr int kRecipeExitBudget = 3;
constexpr int kRecipeExitPaused = 4;

struct RecipeCommandOptions {
  std::string file;
  std::string run_id;
  std::vector<std::string> inputs;  // NAME=VALUE
  std::vector<std::string> approve;
  std::string plan_file;
  bool as_json = false;
};

std::map<std::string, std::string> recipe_inputs_of(const std::vector<std::string> &given) {
  std::map<std::string, std::string> inputs;
  for (const auto &pair : given) {
    const auto equals = pair.find('=');
    if (equals == std::string::npos || equals == 0)
      throw RecipeError(fmt::format("--input takes NAME=VALUE, not '{}'", pair));
    inputs[pair.substr(0, equals)] = pair.substr(equals + 1);
  }
  return inputs;
}

RecipeRunOptions recipe_run_options(const RecipeCommandOptions &options) {
  RecipeRunOptions run;
  run.plan_file = options.plan_file;
  run.approve.insert(options.approve.begin(), options.approve.end());
  run.ask_at_terminal = ::isatty(STDIN_FILENO) && ::isatty(STDERR_FILENO);
  run.progress = [](const std::string &line) {
    std::fprintf(stderr, "%s\n", terminal_safe(line).c_str());
    std::fflush(stderr);
  };
  return run;
}

int report_recipe_run(const RecipeRunResult &result) {
  if (result.status == "done") {
    std::fputs(terminal_safe(result.output).c_str(), stdout);
    if (result.output.empty() || result.output.back() != '\n') std::fputc('\n', stdout);
    std::fflush(stdout);
    std::fprintf(stderr, "recipe run %s: done\n", result.run_id.c_str());
    return 0;
  }
  std::fprintf(stderr, "amplifier: recipe run %s %s: %s\n", result.run_id.c_str(),
               result.status == "paused" ? "paused" : "stopped", terminal_safe(result.message).c_str());
  if (result.status == "paused") return kRecipeExitPaused;
  if (result.status == "budget_exceeded") return kRecipeExitBudget;
  return 1;
}

int list_recipe_runs_command(const RecipeCommandOptions &options) {
  const auto runs = list_recipe_runs();
  if (options.as_json) {
    json::array rows;
    for (const auto &run : runs)
      rows.push_back(json::object{{"run_id", run.run_id}, {"recipe", run.recipe}, {"status", run.status},
                                  {"steps_done", run.steps_done}, {"steps", run.steps},
                                  {"updated", run.updated}, {"cost_usd", run.usd}});
    fmt::print("{}\n", json::serialize(rows));
    return 0;
  }
  if (runs.empty()) {
    fmt::print(stderr, "amplifier: no recipe runs in {}\n", recipe_runs_dir().string());
    return 0;
  }
  fmt::print("{:<36}  {:<20}  {:<16}  {:>7}  {:>9}  {}\n", "RUN", "RECIPE", "STATUS", "STEPS", "COST", "UPDATED");
  for (const auto &run : runs)
    fmt::print("{:<36}  {:<20}  {:<16}  {:>7}  {:>9}  {}\n", run.run_id, run.recipe, run.status,
               fmt::format("{}/{}", run.steps_done, run.steps), fmt::format("${:.4f}", run.usd), run.updated);
  return 0;
}

}  // namespace

void add_recipe_command(CLI::App &app, int &exit_code) {
  CLI::App *recipe = app.add_subcommand(
      "recipe", "Run multi-step recipes (YAML: agent prompts and commands, gates, foreach), resume them");
  recipe->require_subcommand(1);
  auto options = std::make_shared<RecipeCommandOptions>();

  CLI::App *run = recipe->add_subcommand("run", "Run a recipe file, step by step");
  run->add_option("file", options->file, "The recipe (YAML)")->required()->check(CLI::ExistingFile);
  run->add_option("--input,-i", options->inputs, "An input: NAME=VALUE (repeat for more)");
  run->add_option("--plan", options->plan_file, "The plan agent steps run on (default: the built-in plan)")
      ->check(CLI::ExistingFile);
  run->add_option("--approve", options->approve,
                  "Approve this step's gate now (repeat for more); without it a gate asks at the "
                  "terminal, or pauses the run");
  run->callback([options, &exit_code] {
    run_reporting(exit_code, [&] {
      return report_recipe_run(start_recipe_run(options->file, recipe_inputs_of(options->inputs), recipe_run_options(*options)));
    });
  });

  CLI::App *resume = recipe->add_subcommand(
      "resume", "Go on with a run that stopped (a crash, a denied gate, a failed step, its budget)");
  resume->add_option("run", options->run_id, "The run id (see: amplifier recipe list)")->required();
  resume->add_option("--approve", options->approve, "Approve this step's gate (repeat for more)");
  resume->add_option("--plan", options->plan_file, "Another plan for the agent steps still to run")
      ->check(CLI::ExistingFile);
  resume->callback([options, &exit_code] {
    run_reporting(exit_code, [&] { return report_recipe_run(resume_recipe_run(options->run_id, recipe_run_options(*options))); });
  });

  CLI::App *list = recipe->add_subcommand("list", "The recipe runs, newest first, with their status");
  list->add_flag("--json", options->as_json, "Print a JSON array instead of a table");
  list->callback([options, &exit_code] { run_reporting(exit_code, [&] { return list_recipe_runs_command(*options); }); });
}

}  // namespace amplifier::host
