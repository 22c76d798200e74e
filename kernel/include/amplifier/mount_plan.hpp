// Mount plans: the YAML that says which modules a session mounts, with what config.
#pragma once
#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

// Where in the YAML something is (1-based; 0 when unknown).
struct PlanLocation {
  int line = 0;
  int column = 0;
};

// Where a module's code runs: in the host's process, or in one of its own
// (amplifier/isolation.hpp). `inherit` takes the plan's `session.isolation`.
enum class Isolation { inherit, in_process, process };

struct ModuleSpec {
  std::string module;       // module id, e.g. "provider-mock"
  std::string source;       // optional: where to get the module (module_sources.hpp); a relative
                            // path in a plan file is made absolute against the plan's folder
  std::string instance_id;  // optional; lets one provider module be mounted twice
  // `required: true`: when the module cannot be loaded, mounted or made ready, the session
  // does not start (orchestrator and context are always required). Otherwise a failure is
  // announced (module:load_failed) and the session runs without the module.
  bool required = false;
  Isolation isolation = Isolation::inherit;  // `isolation: process | in_process`
  // `timeout: SECONDS`, the deadline of each call the host makes to the module; 0 for none.
  // Past it the call ends with a `timeout` error (and an isolated module's process is killed).
  double timeout_seconds = 0;
  std::size_t memory_limit_mb = 0;  // `memory_limit_mb:` the process's limit (isolation only)
  int restarts_per_minute = 3;      // `restarts_per_minute:` before it stays down (isolation)
  std::size_t max_message_mb = 64;  // `max_message_mb:` largest message to or from its process
  boost::json::object config;
  PlanLocation location;
  std::string file;  // the plan file the entry comes from (with includes, not always the top one)
  // The option keys the entry sets itself (required, isolation, ...): what it overrides when it
  // is merged over the same module of an included plan.
  std::vector<std::string> set_keys;
  // The name it is mounted under: instance_id when set, else module.
  const std::string &mount_name() const { return instance_id.empty() ? module : instance_id; }
};

struct MountPlan {
  std::string file;  // label used in messages ("<embedded default>" for the built-in plan)
  ModuleSpec orchestrator;
  ModuleSpec context;
  std::vector<ModuleSpec> providers;
  std::vector<ModuleSpec> tools;
  std::vector<ModuleSpec> hooks;
  Isolation isolation = Isolation::in_process;  // `session.isolation`: the modules' default
  bool isolation_set = false;
  // `includes: [other.yaml, ...]`, relative to the including file (load_mount_plan merges them).
  std::vector<std::string> includes;
  boost::json::object session_extra;  // other keys under `session`, passed through
  boost::json::object agents;         // passed through untouched
  // `routing: {ROLE: [provider mount name, ...]}`: for each role the providers in the order to
  // try them; a turn falls back to the next on a failure safe to fall back on (the agent loop,
  // libs/cores/orchestrator). Every name is a mounted provider (checked). Published to the
  // session's modules as capability "session.routing".
  boost::json::object routing;
  std::vector<std::string> warnings;  // "file:line:col: key: message"
};

struct PlanProblem {
  std::string file;
  PlanLocation location;
  std::string key;  // dotted path, e.g. "providers[0].config"
  std::string message;
  // "file:line:col: key: message"
  std::string to_string() const;
};

class MountPlanError : public std::runtime_error {
 public:
  explicit MountPlanError(std::vector<PlanProblem> problems);
  const std::vector<PlanProblem> &problems() const noexcept { return problems_; }

 private:
  std::vector<PlanProblem> problems_;
};

// Looks up an environment variable; returns nullopt when unset. Default: the process env.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
EnvLookup process_env();

// The lookup that knows no variable: for text that must not read the process's environment (a
// plan a serve client wrote: its `${ANTHROPIC_API_KEY}` would hand the client the server's
// key). Every ${VAR} expands to its default, or to "".
EnvLookup no_env();

// Limits of one expansion: defaults nest at most kMaxExpansionDepth deep, and the result is at
// most kMaxExpandedBytes long. Past either, expand_env throws ExpansionError naming the limit.
inline constexpr int kMaxExpansionDepth = 16;
inline constexpr std::size_t kMaxExpandedBytes = 1024 * 1024;
class ExpansionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Expands ${VAR} and ${VAR:-default} in `text`. `$$` is a literal `$`. An unset VAR without a
// default expands to "" and, when `unset` is non-null, its name is appended there.
std::string expand_env(std::string_view text, const EnvLookup &env,
                       std::vector<std::string> *unset = nullptr);

// Parse and validate. Collects every problem and throws MountPlanError listing them all.
// Values in config are converted YAML -> JSON with YAML 1.2 core scalar typing (quoted scalars
// stay strings), after ${VAR} expansion.
MountPlan parse_mount_plan(std::string_view yaml_text, std::string file_label,
                           const EnvLookup &env = process_env());
// A partial plan (an agent's overlay, say): the same keys and checks, but no section is
// required and it cannot include others.
MountPlan parse_plan_fragment(std::string_view yaml_text, std::string file_label,
                              const EnvLookup &env = process_env());

// Reads a plan file and the plans it includes, recursively: each included plan is merged in
// order, then the including plan on top (modules merge by mount name, mappings deep-merge,
// scalars of the later plan win, an entry without `source:` keeps the one it merges over).
// Problems name the file they are in; an include cycle is an error naming the cycle.
MountPlan load_mount_plan(const std::filesystem::path &file, const EnvLookup &env = process_env());

// Merges `top` over `base` as load_mount_plan merges an including plan over its includes.
void merge_mount_plan(MountPlan &base, const MountPlan &top);

}  // namespace amplifier
