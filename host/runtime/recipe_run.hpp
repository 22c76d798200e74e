// Running a recipe (recipe.hpp), keeping its state per step so that a run that stopped (a
// crash, Ctrl-C, a denied gate, a failed step, the budget) resumes where it stopped: steps that
// finished are not run again, nor the items of a foreach that finished.
//
// State: $XDG_DATA_HOME/amplifier/recipe-runs/RUN_ID/state.json (default
// ~/.local/share/amplifier/recipe-runs), rewritten atomically after every change, and locked
// (flock on the folder) while a process runs it, so two cannot run one run at once.
//
// Approval gates (a step's `approval: required`) are the operator's to open: at a terminal the
// run asks before the step runs; otherwise, or when the answer is no, the run pauses there and
// `recipe resume RUN_ID --approve STEP` (the operator, on the command line) opens it. Nothing a
// recipe or a model says opens a gate.
#pragma once
#include "recipe.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace amplifier::host {

struct RecipeRunOptions {
  std::string plan_file;           // the plan agent steps run on; empty: the built-in plan
  std::set<std::string> approve;   // steps the operator approved on the command line
  bool ask_at_terminal = false;    // ask at a gate (and for the plan's approvals) on the terminal
  // Progress, one line at a time (the CLI writes them to stderr).
  std::function<void(const std::string &)> progress;
};

struct RecipeRunResult {
  std::string run_id;
  std::string status;  // done | paused | failed | budget_exceeded
  std::string output;  // the last step's output that ran (done)
  std::string message; // why it stopped, and how to go on (otherwise)
};

// Where the runs are kept.
std::filesystem::path recipe_runs_dir();

// Starts a new run of `file` with `inputs` (NAME=VALUE from the command line).
RecipeRunResult start_recipe_run(const std::filesystem::path &file,
                                 const std::map<std::string, std::string> &inputs,
                                 const RecipeRunOptions &options);

// Goes on with run `run_id` from where it stopped (the recipe file as it is now, the inputs and
// plan it started with). Throws RecipeError for a run that does not exist, is done, or is being
// run by another process.
RecipeRunResult resume_recipe_run(const std::string &run_id, const RecipeRunOptions &options);

struct RecipeRunSummary {
  std::string run_id;
  std::string recipe;   // its name
  std::string status;   // as stored: running (or stopped by a crash), paused, failed, ...
  std::size_t steps_done = 0, steps = 0;
  std::string updated;
  double usd = 0;
};

// Newest first.
std::vector<RecipeRunSummary> list_recipe_runs();

}  // namespace amplifier::host
