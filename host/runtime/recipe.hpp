// Recipes: a YAML file of steps run one after another (`amplifier recipe run FILE`), each a
// prompt to an agent or a shell command, whose outputs later steps use. The file format:
//
//   name: release-notes                 # letters, digits, '-', '_'
//   description: ...                    # optional
//   inputs:                             # given with --input NAME=VALUE
//     repo: {required: true, description: the repository}
//     since: {default: 7 days ago}
//   budget: {max_cost_usd: 0.50, max_tokens: 200000}   # the whole run (never above the plan's)
//   steps:
//     - id: plan                        # unique: letters, digits, '-', '_'
//       prompt: "Plan notes for {{inputs.repo}}"      # an agent step (a session of the plan)
//       agent: reviewer                 # optional: an agent of `amplifier agents list`
//     - id: log
//       bash: "git log --since {{inputs.since}} --oneline"   # a command step (sh -c)
//       timeout: 60                     # seconds (default 600)
//     - id: notes
//       foreach: "{{steps.log.output}}" # a JSON array, else one item per non-empty line
//       as: commit                      # the item's name in templates (default: item)
//       parallel: 3                     # at most 3 at once (default 1; true: 4; at most 16)
//       prompt: "Describe {{commit}}"
//     - id: publish
//       condition: "{{steps.plan.output}} != 'nothing to do'"   # == != and or not ( ) 'x'
//       approval: required              # or {required: true, prompt: "Publish {{inputs.repo}}?"}
//       bash: ./publish.sh
//
// Templates: {{inputs.NAME}}, {{steps.ID.output}} (a foreach step's output is a JSON array of its
// items' outputs), {{run.id}}, and a foreach's item name. A name that is not defined fails the
// step, naming those that are.
//
// Trust: the recipe file is the operator's, given on the command line like a script: its bash
// steps run as the operator (read a downloaded recipe before you run it). What a model answers
// and what --input gives are data, never code: a bash step's command holds only references to
// environment variables that hold the values (recipe_template.hpp), and a condition compares
// values without reading them as an expression. An
// agent step runs on the plan with its hooks and approvals, an `agent:` narrowed as delegate
// narrows it (agents.hpp), and `budget` can only lower the plan's.
#pragma once
#include "amplifier/cost/ledger.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace amplifier::host {

class RecipeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RecipeInput {
  std::string name;
  std::string description;
  bool required = false;
  std::optional<std::string> default_value;
};

struct RecipeStep {
  std::string id;
  // Exactly one of these: a prompt for an agent step, a command for a bash step.
  std::optional<std::string> prompt;
  std::optional<std::string> bash;
  std::string agent;  // empty: the plan's own session
  std::chrono::seconds timeout{600};
  std::optional<std::string> condition;
  bool approval = false;
  std::optional<std::string> approval_prompt;
  std::optional<std::string> foreach;
  std::string as = "item";
  int parallel = 1;
};

struct Recipe {
  std::filesystem::path file;  // absolute
  std::string name;
  std::string description;
  std::vector<RecipeInput> inputs;
  cost::Budget budget;
  std::vector<RecipeStep> steps;
  std::string digest;  // SHA-256 (hex) of the file's text: a resume says when it changed
};

// Reads and checks a recipe. Throws RecipeError naming the file, the step and the key.
Recipe load_recipe(const std::filesystem::path &file);

// The values of the inputs: `given` (NAME=VALUE from the command line) over the defaults.
// Throws RecipeError for an unknown name or a missing required input.
std::map<std::string, std::string> resolve_inputs(const Recipe &recipe,
                                                  const std::map<std::string, std::string> &given);

}  // namespace amplifier::host
