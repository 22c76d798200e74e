// The values in a recipe's text: {{...}} templates, a step's condition, a foreach's items.
// Values come from the operator (inputs) and from models and commands (step outputs): none of
// them is ever read as code. A bash command never contains a value: each {{...}} becomes a
// reference to an environment variable holding it ("${AMP_RECIPE_VALUE_1}", double-quoted when
// the command has it outside quotes), and the shell does not parse what a parameter expands
// to. A condition is parsed from the recipe's own text; values only fill its slots.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amplifier::host {

struct TemplateScope {
  const std::map<std::string, std::string> *inputs = nullptr;
  // By step id: the output of each step that ran, nullopt for one that was skipped.
  const std::map<std::string, std::optional<std::string>> *steps = nullptr;
  std::string run_id;
  std::string item_name;   // a foreach's item (empty outside one)
  std::string item_value;
};

enum class Quoting { none, shell };

// `text` with each {{name}} replaced by its value (shell-quoted with Quoting::shell: for
// showing a command to a person, not for running it). Throws RecipeError naming an undefined
// name and the names that are defined.
std::string render_template(std::string_view text, const TemplateScope &scope, Quoting quoting);

// A bash step's command as it runs: the text with its {{...}} turned into variable references,
// and the variables ("NAME=value") to put in its environment. Throws RecipeError for a {{...}}
// inside single quotes (the shell cannot substitute there: write it outside them, it is quoted
// for you), a value with a NUL byte, or one too large for an environment (128 KiB).
struct ShellCommand {
  std::string text;
  std::vector<std::pair<std::string, std::string>> variables;
};
ShellCommand render_command(std::string_view text, const TemplateScope &scope);

// A condition: comparisons (== !=) of {{values}}, 'quoted' or "quoted" literals and bare words,
// joined by and, or, not and parentheses; a lone value is true unless it is empty, false, no,
// none, null or 0 (case ignored, blanks trimmed). Throws RecipeError for bad syntax.
bool evaluate_condition(std::string_view condition, const TemplateScope &scope);

// The items of a rendered foreach value: a JSON array's items (strings as they are, others as
// JSON), else its non-empty lines, trimmed.
std::vector<std::string> foreach_items(std::string_view rendered);

// `text` as one POSIX shell word: 'text' with every ' written '\''.
std::string shell_quote(std::string_view text);

}  // namespace amplifier::host
