#include "recipe.hpp"

#include "amplifier/transcript.hpp"
#include "amplifier/yaml_cpp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace amplifier::host {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxRecipeBytes = 1 << 20;
constexpr int kMaxParallel = 16;
constexpr int kParallelTrue = 4;

bool is_recipe_name(std::string_view text) {
  return !text.empty() && text.size() <= 64 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
         });
}

// 64-bit FNV-1a, hex: enough to notice that a recipe file changed between a run and its resume.
std::string recipe_fingerprint(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", hash);
}

class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string &where, const std::string &problem) const {
    throw RecipeError(fmt::format("{}: {}: {}", file_.string(), where, problem));
  }

  std::string scalar(const YAML::Node &node, const std::string &where) const {
    if (!node.IsScalar()) fail(where, "must be a string");
    return node.as<std::string>();
  }

  void only_keys(const YAML::Node &map, const std::string &where,
                 std::initializer_list<std::string_view> keys) const {
    for (const auto &entry : map) {
      const std::string key = entry.first.as<std::string>();
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::string known;
        for (auto k : keys) known += (known.empty() ? "" : ", ") + std::string(k);
        fail(where, fmt::format("unknown key '{}' (known: {})", key, known));
      }
    }
  }

  RecipeInput input(const std::string &name, const YAML::Node &node) const {
    const std::string where = "inputs." + name;
    if (!is_recipe_name(name)) fail(where, "an input's name is letters, digits, '-' or '_'");
    RecipeInput input;
    input.name = name;
    if (node.IsNull()) return input;
    if (node.IsScalar()) {  // `name: default value`
      input.default_value = node.as<std::string>();
      return input;
    }
    if (!node.IsMap()) fail(where, "must be a map {description, required, default} or a default value");
    only_keys(node, where, {"description", "required", "default"});
    if (node["description"]) input.description = scalar(node["description"], where + ".description");
    if (node["required"]) input.required = node["required"].as<bool>();
    if (node["default"]) input.default_value = scalar(node["default"], where + ".default");
    return input;
  }

  RecipeStep step(const YAML::Node &node, std::size_t index) const {
    std::string where = fmt::format("steps[{}]", index);
    if (!node.IsMap()) fail(where, "a step is a map with an id and a prompt or a bash command");
    RecipeStep step;
    if (!node["id"]) fail(where, "has no id");
    step.id = scalar(node["id"], where + ".id");
    if (!is_recipe_name(step.id)) fail(where, "its id '" + step.id + "' is not letters, digits, '-' or '_'");
    where = "step " + step.id;
    only_keys(node, where, {"id", "prompt", "bash", "type", "command", "agent", "timeout", "condition",
                            "approval", "foreach", "as", "parallel"});
    if (node["prompt"]) step.prompt = scalar(node["prompt"], where + ": prompt");
    if (node["bash"]) step.bash = scalar(node["bash"], where + ": bash");
    // The upstream spelling: type: bash with command.
    if (node["type"]) {
      const std::string type = scalar(node["type"], where + ": type");
      if (type == "bash") {
        if (!node["command"]) fail(where, "type: bash needs a command");
        step.bash = scalar(node["command"], where + ": command");
      } else if (type != "agent") {
        fail(where, "type must be agent or bash, not '" + type + "'");
      }
    } else if (node["command"]) {
      fail(where, "command belongs to type: bash (or write bash: COMMAND)");
    }
    if (step.prompt.has_value() == step.bash.has_value())
      fail(where, "needs exactly one of prompt (an agent step) and bash (a command step)");
    if (node["agent"]) {
      if (step.bash) fail(where, "agent is for a prompt step");
      step.agent = scalar(node["agent"], where + ": agent");
    }
    if (node["timeout"]) {
      const auto seconds = node["timeout"].as<long>();
      if (seconds <= 0 || seconds > 86400) fail(where, "timeout is 1 to 86400 seconds");
      step.timeout = std::chrono::seconds(seconds);
    }
    if (node["condition"]) step.condition = scalar(node["condition"], where + ": condition");
    if (const YAML::Node gate = node["approval"]) {
      if (gate.IsScalar()) {
        const std::string value = gate.as<std::string>();
        if (value == "required" || value == "true") step.approval = true;
        else if (value != "none" && value != "false") fail(where, "approval is required, none, or a map");
      } else if (gate.IsMap()) {
        only_keys(gate, where + ": approval", {"required", "prompt"});
        step.approval = !gate["required"] || gate["required"].as<bool>();
        if (gate["prompt"]) step.approval_prompt = scalar(gate["prompt"], where + ": approval.prompt");
      } else {
        fail(where, "approval is required, none, or a map {required, prompt}");
      }
    }
    if (node["foreach"]) step.foreach = scalar(node["foreach"], where + ": foreach");
    if (node["as"]) {
      if (!step.foreach) fail(where, "as names a foreach item");
      step.as = scalar(node["as"], where + ": as");
      if (!is_recipe_name(step.as) || step.as == "inputs" || step.as == "steps" || step.as == "run")
        fail(where, "as must be a name other than inputs, steps and run");
    }
    if (const YAML::Node parallel = node["parallel"]) {
      if (!step.foreach) fail(where, "parallel is for a foreach step");
      const std::string value = scalar(parallel, where + ": parallel");
      if (value == "true") step.parallel = kParallelTrue;
      else if (value == "false") step.parallel = 1;
      else {
        step.parallel = parallel.as<int>();
        if (step.parallel < 1 || step.parallel > kMaxParallel)
          fail(where, fmt::format("parallel is 1 to {} (or true: {})", kMaxParallel, kParallelTrue));
      }
    }
    return step;
  }

 private:
  fs::path file_;
};

}  // namespace

Recipe load_recipe(const fs::path &given) {
  Recipe recipe;
  recipe.file = fs::absolute(given);
  std::string text;
  try {
    text = transcript::read_file(recipe.file, kMaxRecipeBytes);
  } catch (const std::exception &e) {
    throw RecipeError(fmt::format("cannot read the recipe: {}", e.what()));
  }
  recipe.digest = recipe_fingerprint(text);
  const Reader reader(recipe.file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception &e) {
    throw RecipeError(fmt::format("{}: not valid YAML: {}", recipe.file.string(), e.what()));
  }
  try {
    if (!root.IsMap()) reader.fail("the file", "a recipe is a map with name and steps");
    reader.only_keys(root, "the recipe", {"name", "description", "version", "inputs", "budget", "steps"});
    if (!root["name"]) reader.fail("the recipe", "has no name");
    recipe.name = reader.scalar(root["name"], "name");
    if (!is_recipe_name(recipe.name)) reader.fail("name", "'" + recipe.name + "' is not letters, digits, '-' or '_'");
    if (root["description"]) recipe.description = reader.scalar(root["description"], "description");
    if (const YAML::Node inputs = root["inputs"]) {
      if (!inputs.IsMap()) reader.fail("inputs", "must be a map of input names");
      for (const auto &entry : inputs)
        recipe.inputs.push_back(reader.input(entry.first.as<std::string>(), entry.second));
    }
    if (const YAML::Node budget = root["budget"]) {
      if (!budget.IsMap()) reader.fail("budget", "must be a map {max_cost_usd, max_tokens}");
      reader.only_keys(budget, "budget", {"max_cost_usd", "max_tokens"});
      if (budget["max_cost_usd"]) recipe.budget.max_cost_usd = budget["max_cost_usd"].as<double>();
      if (budget["max_tokens"]) recipe.budget.max_tokens = budget["max_tokens"].as<std::int64_t>();
      if ((recipe.budget.max_cost_usd && *recipe.budget.max_cost_usd <= 0) ||
          (recipe.budget.max_tokens && *recipe.budget.max_tokens <= 0))
        reader.fail("budget", "limits must be positive");
    }
    const YAML::Node steps = root["steps"];
    if (!steps || !steps.IsSequence() || steps.size() == 0)
      reader.fail("steps", "a recipe needs a list of at least one step");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      RecipeStep step = reader.step(steps[i], i);
      if (!ids.insert(step.id).second) reader.fail("step " + step.id, "two steps have this id");
      recipe.steps.push_back(std::move(step));
    }
  } catch (const YAML::Exception &e) {
    throw RecipeError(fmt::format("{}: line {}: {}", recipe.file.string(), e.mark.line + 1, e.msg));
  }
  return recipe;
}

std::map<std::string, std::string> resolve_inputs(const Recipe &recipe,
                                                  const std::map<std::string, std::string> &given) {
  std::map<std::string, std::string> values;
  for (const auto &[name, value] : given) {
    const bool known = std::any_of(recipe.inputs.begin(), recipe.inputs.end(),
                                   [&](const RecipeInput &input) { return input.name == name; });
    if (!known) {
      std::string names;
      for (const auto &input : recipe.inputs) names += (names.empty() ? "" : ", ") + input.name;
      throw RecipeError(fmt::format("recipe {} has no input '{}' (its inputs: {})", recipe.name, name,
                                    names.empty() ? "none" : names));
    }
    values[name] = value;
  }
  for (const auto &input : recipe.inputs) {
    if (values.contains(input.name)) continue;
    if (input.default_value) values[input.name] = *input.default_value;
    else if (input.required)
      throw RecipeError(fmt::format("recipe {} needs --input {}=VALUE{}", recipe.name, input.name,
                                    input.description.empty() ? "" : " (" + input.description + ")"));
    else values[input.name] = "";
  }
  return values;
}

}  // namespace amplifier::host
