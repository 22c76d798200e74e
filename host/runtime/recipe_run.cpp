#include "recipe_run.hpp"

#include "agents.hpp"
#include "operator_question.hpp"
#include "plan_loading.hpp"
#include "recipe_template.hpp"
#include "session_launch.hpp"

#include "amplifier/process/environment.hpp"
#include "amplifier/process/run.hpp"
#include "amplifier/session.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/terminal_text.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier/user_dirs.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;
namespace proc = amplifier::process;
namespace store = session_store;

namespace {

constexpr std::size_t kStepPreviewChars = 100;
constexpr std::size_t kMaxBashOutputBytes = 4 << 20;

// A step that could not finish, and why (the run stops as failed).
struct StepFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The run's budget is spent (the run stops as budget_exceeded).
struct BudgetSpent : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string state_string(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

std::string trim_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// One run: its recipe, its state (the JSON written to state.json) and what it may spend.
class RecipeRun {
 public:
  // `lock` holds the run's folder (taken before its state was read).
  RecipeRun(fs::path dir, store::SessionLock lock, json::object state, const RecipeRunOptions &options)
      : dir_(std::move(dir)), lock_(std::move(lock)), state_(std::move(state)), options_(options) {}

  RecipeRunResult run() {
    const std::string &id = run_id_;
    const fs::path file(state_string(state_.at("recipe").as_object(), "file"));
    recipe_ = load_recipe(file);
    if (recipe_.digest != state_string(state_.at("recipe").as_object(), "digest")) {
      say(fmt::format("the recipe {} changed since the run started: the steps that finished are "
                      "kept, the others run as the file says now, and their gates ask again",
                      file.string()));
      state_["recipe"].as_object()["digest"] = recipe_.digest;
      // A yes was for the step as it was: an edited command must be approved again.
      if (json::value *steps = state_.if_contains("steps"); steps && steps->is_object())
        for (auto &[step, record] : steps->as_object())
          if (record.is_object() && state_string(record.as_object(), "status") != "done")
            record.as_object().erase("approved");
    }
    for (const auto &[name, value] : state_.at("inputs").as_object())
      inputs_[name] = value.is_string() ? std::string(value.get_string()) : json::serialize(value);
    // The plan given to this command (resume --plan), else the one the run started with.
    if (!options_.plan_file.empty()) state_["plan_file"] = fs::absolute(options_.plan_file).string();
    plan_ = resolve_plan(state_string(state_, "plan_file"), /*with_display=*/false);
    plan_budget_ = plan_.session_extra.contains("budget")
                       ? cost::budget_from_json(plan_.session_extra.at("budget"), "session.budget")
                       : cost::Budget{};
    working_dir_ = state_string(state_, "working_dir");
    if (const json::value *spent = state_.if_contains("spent"))
      spent_ = cost::totals_from_json(*spent);

    set_status("running", "");
    std::string last_output;
    const std::size_t count = recipe_.steps.size();
    for (std::size_t i = 0; i < count; ++i) {
      const RecipeStep &step = recipe_.steps[i];
      const std::string label = fmt::format("[{}/{}] {}", i + 1, count, step.id);
      json::object &record = step_record(step.id);
      const std::string status = state_string(record, "status");
      if (status == "done" || status == "skipped") {
        say(label + ": " + status + " earlier");
        const bool done = status == "done";
        outputs_[step.id] = done ? std::optional(state_string(record, "output")) : std::nullopt;
        if (done) last_output = *outputs_[step.id];
        continue;
      }
      try {
        const TemplateScope scope = scope_for();
        if (step.condition && !evaluate_condition(*step.condition, scope)) {
          record["status"] = "skipped";
          outputs_[step.id] = std::nullopt;
          save();
          say(label + ": skipped (its condition is false)");
          continue;
        }
        if (step.approval && !open_gate(step, record, scope, label)) {
          const std::string message = fmt::format(
              "step {} was not approved{}; the run is paused there. Go on with: amplifier recipe "
              "resume {} --approve {}",
              step.id, approval_refusal_, id, step.id);
          set_status("paused", message);
          return {id, "paused", "", message};
        }
        check_budget();
        record["status"] = "running";
        record["started"] = store::utc_timestamp_now();
        save();
        say(label + (step.foreach ? ": running each item" : step.bash ? ": running the command" : ": asking the model"));
        const std::string output = step.foreach ? run_foreach(step, record, scope) : run_once(step, scope, label);
        record["status"] = "done";
        record["output"] = output;
        record["finished"] = store::utc_timestamp_now();
        record.erase("error");
        outputs_[step.id] = output;
        last_output = output;
        save();
        say(fmt::format("{}: done: {}", label, store::one_line_preview(output, kStepPreviewChars)));
      } catch (const BudgetSpent &e) {
        record["status"] = "stopped";
        record["error"] = e.what();
        const std::string message = fmt::format("{} (step {}); raise the recipe's budget and go on "
                                                "with: amplifier recipe resume {}",
                                                e.what(), step.id, id);
        set_status("budget_exceeded", message);
        return {id, "budget_exceeded", "", message};
      } catch (const std::exception &e) {  // StepFailure, RecipeError (a template), a session's
        record["status"] = "failed";
        record["error"] = e.what();
        const std::string message = fmt::format("step {} failed: {}; fix the cause and go on with: "
                                                "amplifier recipe resume {}",
                                                step.id, e.what(), id);
        set_status("failed", message);
        return {id, "failed", "", message};
      }
    }
    set_status("done", "");
    return {id, "done", last_output, ""};
  }

 private:
  void say(const std::string &line) const {
    if (options_.progress) options_.progress(line);
  }

  json::object &step_record(const std::string &id) {
    json::value &steps = state_["steps"];
    if (!steps.is_object()) steps = json::object{};
    json::value &record = steps.as_object()[id];
    if (!record.is_object()) record = json::object{{"status", "pending"}};
    return record.as_object();
  }

  TemplateScope scope_for() const {
    TemplateScope scope;
    scope.inputs = &inputs_;
    scope.steps = &outputs_;
    scope.run_id = run_id_;
    return scope;
  }

  void set_status(const std::string &status, const std::string &message) {
    state_["status"] = status;
    state_["message"] = message;
    save();
  }

  void save() {
    cost::Totals spent;
    {
      std::lock_guard lock(spent_mutex_);
      spent = spent_;
    }
    std::lock_guard lock(save_mutex_);
    state_["updated"] = store::utc_timestamp_now();
    state_["spent"] = cost::to_json(spent);
    transcript::replace_file_atomically(dir_ / "state.json", json::serialize(state_));
  }

  // The gate before a step: the operator's --approve, else a question at the terminal.
  bool open_gate(const RecipeStep &step, json::object &record, const TemplateScope &scope,
                 const std::string &label) {
    if (const json::value *approved = record.if_contains("approved"); approved && approved->is_bool() &&
                                                                       approved->get_bool())
      return true;
    bool yes = false;
    if (options_.approve.contains(step.id)) {
      yes = true;
      say(label + ": approved on the command line");
    } else if (options_.ask_at_terminal && operator_at_terminal()) {
      // What will run, whole (values shell-quoted as a reader would write them), whatever the
      // recipe's own question says.
      const std::string what =
          step.foreach ? "for each of " + render_template(*step.foreach, scope, Quoting::none) + ", "
                       : std::string();
      const std::string action = step.bash ? "run: " + render_template(*step.bash, scope, Quoting::shell)
                                           : "ask the model: " + render_template(*step.prompt, scope, Quoting::none);
      const std::string question =
          step.approval_prompt ? render_template(*step.approval_prompt, scope, Quoting::none) + "\n" : "";
      yes = operator_says_yes(terminal_safe(fmt::format("{}: {}step {} will {}{}\nApprove it?", label, question,
                                                        step.id, what, action)));
      approval_refusal_ = yes ? "" : " (answered no)";
    } else {
      approval_refusal_ = " (no terminal to ask)";
    }
    record["approved"] = yes;
    record["status"] = yes ? "approved" : "denied";
    save();
    if (!yes) say(label + ": not approved" + approval_refusal_);
    return yes;
  }

  // ---- budget --------------------------------------------------------------------------

  std::optional<cost::Budget> remaining_budget() const {
    if (recipe_.budget.empty()) return std::nullopt;
    std::lock_guard lock(spent_mutex_);
    cost::Budget left;
    if (recipe_.budget.max_cost_usd) left.max_cost_usd = *recipe_.budget.max_cost_usd - spent_.usd;
    if (recipe_.budget.max_tokens) left.max_tokens = *recipe_.budget.max_tokens - spent_.tokens.total();
    return left;
  }

  void check_budget() const {
    const auto left = remaining_budget();
    if (!left) return;
    std::lock_guard lock(spent_mutex_);
    if (left->max_cost_usd && (*left->max_cost_usd <= 0 || spent_.unpriced_calls > 0))
      throw BudgetSpent(fmt::format("the recipe's budget of ${:.4f} is spent (${:.4f}{})",
                                    *recipe_.budget.max_cost_usd, spent_.usd,
                                    spent_.unpriced_calls ? ", and calls of a model with no price, "
                                                            "whose cost no money limit can hold: give "
                                                            "the model a price (session.pricing) or "
                                                            "use max_tokens"
                                                          : ""));
    if (left->max_tokens && *left->max_tokens <= 0)
      throw BudgetSpent(fmt::format("the recipe's budget of {} tokens is spent ({})",
                                    *recipe_.budget.max_tokens, spent_.tokens.total()));
  }

  void add_spending(const TurnResult &result) {
    const json::object *report = result.report.if_object();
    const json::value *ledger = report ? report->if_contains("ledger") : nullptr;
    if (!ledger) return;
    std::lock_guard lock(spent_mutex_);
    spent_.add(cost::ledger_from_json(*ledger).total());
  }

  // ---- steps -----------------------------------------------------------------------------

  std::string run_foreach(const RecipeStep &step, json::object &record, const TemplateScope &scope) {
    const std::vector<std::string> items = foreach_items(render_template(*step.foreach, scope, Quoting::none));
    json::value &kept = record["iterations"];
    // Items that finished before (a resumed run) keep their outputs, when the list is the same.
    if (!kept.is_array() || kept.as_array().size() != items.size()) kept = json::array(items.size());
    json::array &iterations = kept.as_array();
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const json::object *done = iterations[i].if_object();
      if (!done || state_string(*done, "status") != "done" || state_string(*done, "item") != items[i])
        pending.push_back(i);
    }
    if (pending.size() < items.size())
      say(fmt::format("  {} of {} items finished earlier", items.size() - pending.size(), items.size()));
    std::atomic<std::size_t> next{0};
    std::mutex failure_mutex;
    std::optional<std::string> failure;
    bool budget_spent = false;  // the failure recorded is the budget's
    // Never throws: whatever an item does, its failure is recorded and the others stop taking
    // new items (an exception leaving a thread would end the process).
    auto worker = [&]() noexcept {
      for (std::size_t n = next++; n < pending.size(); n = next++) {
        {
          std::lock_guard lock(failure_mutex);
          if (failure) return;
        }
        const std::size_t i = pending[n];
        TemplateScope item_scope = scope;
        item_scope.item_name = step.as;
        item_scope.item_value = items[i];
        const std::string label = fmt::format("  {}[{}/{}]", step.id, i + 1, items.size());
        try {
          check_budget();
          const std::string output = run_once(step, item_scope, label);
          {
            std::lock_guard lock(save_mutex_);
            iterations[i] = json::object{{"status", "done"}, {"item", items[i]}, {"output", output}};
          }
          save();
          say(label + ": done");
        } catch (const BudgetSpent &e) {
          std::lock_guard lock(failure_mutex);
          if (!failure) {
            failure = e.what();
            budget_spent = true;
          }
        } catch (const std::exception &e) {
          std::lock_guard lock(failure_mutex);
          if (!failure) failure = fmt::format("item {} ({}): {}", i + 1, store::one_line_preview(items[i], 60), e.what());
        }
      }
    };
    const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(step.parallel), pending.size());
    sessions_at_once_ = static_cast<int>(count);
    {
      std::vector<std::jthread> workers;  // joined on the way out, whatever happens
      for (std::size_t w = 1; w < count; ++w) workers.emplace_back(worker);
      if (count > 0) worker();
    }
    sessions_at_once_ = 1;
    if (failure) {
      if (budget_spent) throw BudgetSpent(*failure);
      throw StepFailure(*failure);
    }
    json::array outputs;
    for (const auto &iteration : iterations) outputs.push_back(iteration.as_object().at("output"));
    return json::serialize(outputs);
  }

  std::string run_once(const RecipeStep &step, const TemplateScope &scope, const std::string &label) {
    return step.bash ? run_command(step, render_command(*step.bash, scope))
                     : run_agent(step, render_template(*step.prompt, scope, Quoting::none), label);
  }

  // Starts `sh -c` with the operator's environment plus the step's values.
  // Trust: who may make this run is the operator alone, who named the recipe file on the
  // command line (`amplifier recipe run`; nothing else starts a recipe: no serve route, no
  // tool, and no recipe is ever found in a project folder, so a cloned repository or a
  // downloaded plan cannot add one). The command text is the recipe's; a serve client has no
  // way in, and what a model answered (or --input gave) reaches the command only as the value
  // of an environment variable, never as its text (render_command; test_recipes has a model
  // and an input try).
  std::string run_command(const RecipeStep &step, ShellCommand command) const {
    proc::Spec spec;
    spec.argv = {"/bin/sh", "-c", command.text};
    spec.working_dir = working_dir_;
    command.variables.emplace_back("AMPLIFIER_RECIPE_RUN", run_id_);
    spec.environment = proc::environment_with(command.variables);
    proc::RunOptions run;
    run.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(step.timeout);
    run.max_output_bytes = kMaxBashOutputBytes;
    proc::RunOutcome outcome;
    try {
      outcome = proc::run_to_end(std::move(spec), run);
    } catch (const proc::SpawnError &e) {
      throw StepFailure(std::string("the command did not start: ") + e.what());
    }
    if (outcome.timed_out)
      throw StepFailure(fmt::format("the command ran past its timeout of {} s", step.timeout.count()));
    if (outcome.exit_code() != 0) {
      const std::string why = outcome.exit_code() < 0 ? proc::describe_wait_status(outcome.wait_status)
                                                      : fmt::format("exit code {}", outcome.exit_code());
      const std::string err = trim_trailing_newlines(outcome.err);
      throw StepFailure(fmt::format("the command ended with {}{}", why,
                                    err.empty() ? "" : ": " + err.substr(err.size() > 500 ? err.size() - 500 : 0)));
    }
    return trim_trailing_newlines(std::move(outcome.out));
  }

  std::string run_agent(const RecipeStep &step, const std::string &prompt, const std::string &label) {
    MountPlan plan = plan_;
    if (!step.agent.empty()) {
      const AgentCatalog catalog = AgentCatalog::discover(plan_, working_dir_);
      const AgentDefinition *agent = catalog.find(step.agent);
      if (!agent) throw StepFailure(fmt::format("there is no agent '{}' (see: amplifier agents list)", step.agent));
      plan = child_plan(plan_, agent, {}, {});
    }
    // The run's budget, as what is left of it, held by the session like its own (the stricter
    // of the plan's and the recipe's).
    if (auto left = remaining_budget()) {
      // Items that run side by side share what is left, so together they stay within it.
      const int sharing = std::max(1, sessions_at_once_.load());
      if (left->max_cost_usd) *left->max_cost_usd /= sharing;
      if (left->max_tokens) *left->max_tokens /= sharing;
      cost::Budget budget = plan_budget_.stricter(*left);
      plan.session_extra["budget"] = cost::to_json(budget);
    }
    LaunchOptions launch;
    launch.folder = working_dir_;
    launch.approvals_at_terminal = options_.ask_at_terminal;
    // Loads the plan's modules. Trust: the plan is the operator's (--plan or the built-in one),
    // an `agent:` narrowed by child_plan as delegate narrows it; the model only writes text.
    auto session = launch_session(std::move(plan), std::move(launch));
    try {
      session->initialize();
    } catch (const SessionError &e) {
      throw StepFailure(std::string("its session did not start: ") + e.what());
    }
    const TurnResult result = session->execute(prompt);
    session->cleanup();
    add_spending(result);
    save();
    if (result.status == "budget_exceeded")
      throw BudgetSpent(fmt::format("the recipe's budget ran out during {}", label));
    if (result.status == "error") throw StepFailure(error_message(result));
    if (result.status == "cancelled") throw StepFailure("the turn was cancelled");
    return result.response;
  }

  const fs::path dir_;
  store::SessionLock lock_;
  json::object state_;
  const RecipeRunOptions &options_;
  const std::string run_id_ = state_string(state_, "run_id");
  std::atomic<int> sessions_at_once_{1};
  Recipe recipe_;
  MountPlan plan_;
  cost::Budget plan_budget_;
  fs::path working_dir_;
  std::map<std::string, std::string> inputs_;
  std::map<std::string, std::optional<std::string>> outputs_;
  std::string approval_refusal_;
  mutable std::mutex spent_mutex_;
  cost::Totals spent_;
  std::mutex save_mutex_;
};

json::object read_state(const fs::path &dir, const std::string &run_id) {
  const fs::path file = dir / "state.json";
  if (!fs::exists(file))
    throw RecipeError(fmt::format("there is no recipe run '{}' (see: amplifier recipe list)", run_id));
  json::error_code ec;
  json::value state = json::parse(transcript::read_file(file, 64 << 20), ec);
  if (ec || !state.is_object())
    throw RecipeError(fmt::format("{} is not a recipe run's state (not a JSON object)", file.string()));
  return std::move(state.as_object());
}

}  // namespace

fs::path recipe_runs_dir() { return user_dirs::data() / "recipe-runs"; }

RecipeRunResult start_recipe_run(const fs::path &file, const std::map<std::string, std::string> &given,
                                 const RecipeRunOptions &options) {
  const Recipe recipe = load_recipe(file);
  const auto inputs = resolve_inputs(recipe, given);
  const std::string run_id = new_uuid();
  const fs::path dir = recipe_runs_dir() / run_id;
  fs::create_directories(dir);
  json::object input_values;
  for (const auto &[name, value] : inputs) input_values[name] = value;
  json::object state{{"run_id", run_id},
                     {"recipe", json::object{{"file", recipe.file.string()},
                                             {"name", recipe.name},
                                             {"digest", recipe.digest}}},
                     {"plan_file", options.plan_file.empty() ? std::string() : fs::absolute(options.plan_file).string()},
                     {"working_dir", fs::current_path().string()},
                     {"inputs", std::move(input_values)},
                     {"created", store::utc_timestamp_now()},
                     {"status", "running"},
                     {"steps", json::object{}}};
  auto lock = store::SessionLock::try_acquire(dir);
  if (!lock) throw RecipeError(fmt::format("run {} is being run by another process right now", run_id));
  transcript::replace_file_atomically(dir / "state.json", json::serialize(state));
  if (options.progress) options.progress(fmt::format("recipe {}: run {}", recipe.name, run_id));
  return RecipeRun(dir, std::move(*lock), std::move(state), options).run();
}

RecipeRunResult resume_recipe_run(const std::string &run_id, const RecipeRunOptions &options) {
  store::check_session_id(run_id);  // the same shape: no path in it
  const fs::path dir = recipe_runs_dir() / run_id;
  if (!fs::is_directory(dir))
    throw RecipeError(fmt::format("there is no recipe run '{}' (see: amplifier recipe list)", run_id));
  // Locked before its state is read: another process that finished a step meanwhile has
  // written it by the time the lock is ours.
  auto lock = store::SessionLock::try_acquire(dir);
  if (!lock) throw RecipeError(fmt::format("run {} is being run by another process right now", run_id));
  json::object state = read_state(dir, run_id);
  if (state_string(state, "status") == "done")
    throw RecipeError(fmt::format("run {} is done; start a new one with amplifier recipe run", run_id));
  if (options.progress)
    options.progress(fmt::format("recipe {}: resuming run {}", state_string(state.at("recipe").as_object(), "name"), run_id));
  return RecipeRun(dir, std::move(*lock), std::move(state), options).run();
}

std::vector<RecipeRunSummary> list_recipe_runs() {
  std::vector<RecipeRunSummary> runs;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(recipe_runs_dir(), ec)) {
    const std::string id = entry.path().filename().string();
    if (!store::is_valid_session_id(id)) continue;
    try {
      const json::object state = read_state(entry.path(), id);
      RecipeRunSummary summary;
      summary.run_id = id;
      summary.recipe = state_string(state.at("recipe").as_object(), "name");
      summary.status = state_string(state, "status");
      summary.updated = state_string(state, "updated");
      if (const json::value *spent = state.if_contains("spent"))
        summary.usd = cost::totals_from_json(*spent).usd;
      if (const json::value *steps = state.if_contains("steps"); steps && steps->is_object())
        for (const auto &[step, record] : steps->as_object()) {
          const std::string status = record.is_object() ? state_string(record.as_object(), "status") : "";
          summary.steps_done += status == "done" || status == "skipped";
        }
      if (const auto recipe_file = state_string(state.at("recipe").as_object(), "file"); fs::exists(recipe_file)) {
        try {
          summary.steps = load_recipe(recipe_file).steps.size();
        } catch (const std::exception &) {
        }
      }
      runs.push_back(std::move(summary));
    } catch (const std::exception &) {
      continue;  // a run folder being written, or damaged: not listed
    }
  }
  std::sort(runs.begin(), runs.end(), [](const auto &a, const auto &b) { return a.updated > b.updated; });
  return runs;
}

}  // namespace amplifier::host
