// tool-bash: the `bash` tool. Runs `/bin/bash -c <command>` (see process_runner.hpp for the
// process group, the timeout and the clean-up) in a working directory confined to the allowed
// paths, after checking the command against the deny and allow lists (command_match.hpp).
//
// Whether a command needs the user's approval is not decided here: hooks-approval's default
// rules ask before every `bash` call. This module only refuses what its own lists refuse.
//
// The result: `output` is the captured output (stdout and stderr interleaved as written,
// capped: beginning and end kept, the middle elided with a note) followed by a status line,
// "Exit code: N", "Terminated by signal N (NAME)" or "Timed out after N s; ...". `success` is
// true only for exit code 0; a failed result carries the same text as its error message, so
// the model reads the output either way. Extra fields: exit_code (or null), signal (or null),
// timed_out, output_bytes (all the command printed), elided_bytes, sandboxed (whether the
// command ran in the sandbox) and, when the sandbox could not run and the config chose
// `unavailable: unsandboxed`, sandbox_unavailable (why).
// An immediate cancellation ends the call with status AMP_CANCELLED (kind "cancelled").
//
// With `sandbox` enabled every command runs under bubblewrap (sandbox.hpp). Whether it can is
// probed once, at create; when it cannot, the module either fails to load with the reason
// (`unavailable: refuse`, the default) or warns once and runs commands unsandboxed, saying so
// in its description and in every result, never silently.
//
// THREADS: the host runs execute on its worker threads, concurrently; each call runs its
// command synchronously inside execute. cancel() may come from any thread; the running calls
// are found through a mutex-guarded map.
#include "amplifier/module_support/command_match.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/module_support/path_policy.hpp"
#include "process_runner.hpp"
#include "sandbox.hpp"

#include "amplifier/model.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier/module_support/tool_result.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace tool_bash {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
namespace ms = amplifier::module_support;
using tool_filesystem::PathPolicy;
using tool_filesystem::PathRefused;

struct BashConfig {
  fs::path working_dir;
  std::vector<std::string> allowed_paths;
  std::vector<std::string> allow;  // empty: every command not denied
  std::vector<std::string> deny;
  double timeout_seconds = 120;
  double max_timeout_seconds = 600;
  double kill_grace_seconds = 2;
  std::size_t max_output_bytes = 30'000;
  SandboxConfig sandbox;
  std::vector<fs::path> writable_paths;  // the sandbox's, resolved
};

BashConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-bash config");
  BashConfig config;
  config.working_dir =
      fs::absolute(ms::expand_home(reader.get_string("working_dir", fs::current_path().string())));
  config.allowed_paths = reader.get_string_list("allowed_paths", {"."});
  // A session the host confined to a folder (serve's): commands run there and nowhere else,
  // whatever the plan's config said (the sandbox's paths are resolved against it too).
  if (const auto folder = ms::confined_folder_of(host)) {
    config.working_dir = *folder;
    config.allowed_paths = {"."};
  }
  config.allow = reader.get_string_list("allow", {});
  config.deny = reader.get_string_list("deny", {});
  config.max_timeout_seconds = reader.get_number("max_timeout_seconds", config.max_timeout_seconds, 0.001, 86'400);
  config.timeout_seconds =
      reader.get_number("timeout_seconds", std::min(config.timeout_seconds, config.max_timeout_seconds),
                        0.001, config.max_timeout_seconds);
  config.kill_grace_seconds = reader.get_number("kill_grace_seconds", config.kill_grace_seconds, 0, 60);
  config.max_output_bytes = static_cast<std::size_t>(
      reader.get_int("max_output_bytes", static_cast<std::int64_t>(config.max_output_bytes), 256, 64 << 20));
  config.sandbox = read_sandbox_config(reader, config.working_dir, host);
  reader.warn_unknown_keys(host);
  std::error_code ec;
  if (!fs::is_directory(config.working_dir, ec))
    throw reader.error("working_dir", "is not an existing directory: " + config.working_dir.string());
  // Checked only for a sandbox in use: a disabled one must not stop the tool loading.
  if (config.sandbox.enabled)
    config.writable_paths = resolve_writable_paths(reader, config.sandbox, config.working_dir);
  return config;
}

std::chrono::milliseconds to_millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The tool's spec. Its description tells the model how commands are confined: `sandbox` when
// they run in one, `sandbox_unavailable` when the config asked for one that cannot run here.
json::object bash_spec(const BashConfig &config, const Sandbox *sandbox,
                       const std::optional<std::string> &sandbox_unavailable) {
  std::string description =
      "Run a shell command with /bin/bash -c and return its output (stdout and stderr "
      "interleaved) followed by its exit code. Long output keeps its beginning and end. The "
      "command runs in the working directory unless working_dir says otherwise, with stdin "
      "empty, and is killed with its whole process group after timeout_seconds (default " +
      format_seconds(config.timeout_seconds) + ", at most " +
      format_seconds(config.max_timeout_seconds) +
      "). Background processes it starts are ended when it exits.";
  if (sandbox) description += " " + sandbox->describe();
  if (sandbox_unavailable)
    description += " The configured sandbox cannot run here (" + *sandbox_unavailable +
                   "): commands run unsandboxed.";
  return {
      {"name", "bash"},
      {"description", description},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"command", {{"type", "string"}, {"minLength", 1}, {"description", "The command line to run"}}},
          {"timeout_seconds", {{"type", "number"}, {"exclusiveMinimum", 0},
                               {"maximum", config.max_timeout_seconds},
                               {"description", "Seconds before the command is killed"}}},
          {"working_dir", {{"type", "string"},
                           {"description", "Directory to run in (default: the working directory)"}}}}},
        {"required", json::array{"command"}},
        {"additionalProperties", false}}},
  };
}

// A failure the model reads (bad input, a refused command or directory).
class Refusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using ms::tool_result;

std::string status_line(const RunResult &run, const RunLimits &limits) {
  if (run.end == RunEnd::timed_out)
    return "Timed out after " + format_seconds(limits.timeout.count() / 1000.0) +
           " s; the command and its process group were terminated.";
  if (run.signal != 0)
    return "Terminated by signal " + std::to_string(run.signal) + " (" + strsignal(run.signal) + ").";
  return "Exit code: " + std::to_string(run.exit_code);
}

std::string result_text(const RunResult &run, const RunLimits &limits) {
  std::string text = run.output.text();
  if (text.empty()) text = "(no output)";
  if (!text.ends_with('\n')) text += '\n';
  return text + status_line(run, limits);
}

json::object result_fields(const RunResult &run) {
  return {{"exit_code", run.exit_code >= 0 ? json::value(run.exit_code) : json::value()},
          {"signal", run.signal != 0 ? json::value(run.signal) : json::value()},
          {"timed_out", run.end == RunEnd::timed_out},
          {"output_bytes", run.output.total_bytes()},
          {"elided_bytes", run.output.elided_bytes()}};
}

// Where the commands run, decided once at create.
struct SandboxChoice {
  std::optional<Sandbox> sandbox;          // commands run in it
  std::optional<std::string> unavailable;  // enabled but cannot run: why; commands run without
};

// A sandbox that cannot run stops the module (`unavailable: refuse`), or is warned about here,
// once, and recorded for the description and every result.
SandboxChoice choose_sandbox(const amp::sdk::Host &host, const BashConfig &config,
                             const PathPolicy &directories) {
  if (!config.sandbox.enabled) return {};
  Sandbox sandbox(config.sandbox, config.writable_paths, directories.roots());
  std::optional<std::string> reason = sandbox.unavailable_reason(config.working_dir);
  if (!reason) return {std::move(sandbox), std::nullopt};
  if (config.sandbox.when_unavailable == WhenUnavailable::refuse) {
    throw std::runtime_error("tool-bash sandbox: cannot run here: " + *reason +
                             ". Commands are refused (sandbox.unavailable: refuse); set "
                             "sandbox.unavailable: unsandboxed to run them without a sandbox.");
  }
  host.warn("tool-bash sandbox: cannot run here: " + *reason +
            ". Commands run UNSANDBOXED (sandbox.unavailable: unsandboxed); every result "
            "records it as sandbox_unavailable.");
  return {std::nullopt, std::move(reason)};
}

class BashTool final : public amp::sdk::ToolModule {
 public:
  BashTool(amp::sdk::Host host, std::string_view config_json)
      : BashTool(host, read_config(host, config_json)) {}

  std::string list_tools() override {
    const Sandbox *sandbox = sandbox_.sandbox ? &*sandbox_.sandbox : nullptr;
    return json::serialize(json::array{bash_spec(config_, sandbox, sandbox_.unavailable)});
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    if (tool != "bash") {
      host().call_fail(call, "not_found", "tool-bash has no tool '" + std::string(tool) + "'", AMP_NOT_FOUND);
      return;
    }
    if (host().cancel_state(call) >= AMP_CANCEL_IMMEDIATE) {
      host().call_fail(call, "cancelled", "bash cancelled before it started", AMP_CANCELLED);
      return;
    }
    struct Request request;
    try {
      request = read_request(input_json);
    } catch (const std::exception &e) {  // Refusal, PathRefused, ConfigError: for the model
      host().call_finish(call, AMP_OK, tool_result(false, e.what()));
      return;
    }
    run(call, request);
  }

  void cancel(amp_call_id call, amp_cancel_level level) override {
    if (level < AMP_CANCEL_IMMEDIATE) return;  // graceful: the running command finishes
    std::lock_guard lock(running_mutex_);
    if (auto it = running_.find(call); it != running_.end()) it->second->trigger();
  }

 private:
  struct Request {
    std::string command;
    fs::path working_dir;
    RunLimits limits;
  };

  BashTool(amp::sdk::Host host, BashConfig config)
      : ToolModule(host),
        config_(std::move(config)),
        directories_(config_.working_dir, config_.allowed_paths, "bash working directory"),
        sandbox_(choose_sandbox(host, config_, directories_)) {}

  Request read_request(std::string_view input_json) const {
    ms::ConfigReader input = [&] {
      try {
        return ms::ConfigReader(input_json, "bash input");
      } catch (const ms::ConfigError &e) {
        throw Refusal(e.what());
      }
    }();
    Request request;
    request.command = input.get_string("command", "");
    if (request.command.empty()) throw Refusal("bash input: 'command' is required");
    const double timeout = input.get_number("timeout_seconds", config_.timeout_seconds, 0.001,
                                            config_.max_timeout_seconds);
    request.limits = {to_millis(timeout), to_millis(config_.kill_grace_seconds), config_.max_output_bytes};
    request.working_dir = working_dir_for(input.get_string("working_dir", "."));
    check_policy(request.command);
    return request;
  }

  fs::path working_dir_for(const std::string &requested) const {
    const fs::path resolved = directories_.resolve(requested.empty() ? "." : requested);
    std::error_code ec;
    if (!fs::is_directory(resolved, ec))
      throw Refusal("bash input: working_dir '" + requested + "' is not an existing directory");
    return resolved;
  }

  // Deny wins over allow; an allow list, when given, must cover every simple command.
  void check_policy(const std::string &command) const {
    if (auto denied = command_match::match_any_part(config_.deny, command)) {
      throw Refusal("Command denied by tool-bash policy: '" + denied->command +
                    "' matches the deny pattern '" + denied->pattern + "'. It was not run.");
    }
    std::string unmatched;
    if (!config_.allow.empty() && !command_match::match_every_part(config_.allow, command, &unmatched)) {
      throw Refusal("Command not allowed by tool-bash policy: '" + unmatched +
                    "' matches none of the allowed patterns (" + join(config_.allow) +
                    "). It was not run.");
    }
  }

  void run(amp_call_id call, const Request &request) {
    auto interrupt = std::make_shared<Interrupt>();
    register_running(call, interrupt);
    RunResult outcome;
    try {
      Command command = shell_command(request.command, request.working_dir);
      if (sandbox_.sandbox) command = sandbox_.sandbox->wrap(command);
      outcome = run_command(command, request.limits, *interrupt,
                            [&] { return host().cancel_state(call) >= AMP_CANCEL_IMMEDIATE; });
    } catch (const SpawnError &e) {
      unregister_running(call);
      host().call_finish(call, AMP_OK, tool_result(false, e.what(), sandbox_fields()));
      return;
    }
    unregister_running(call);
    report(call, outcome, request.limits);
  }

  void report(amp_call_id call, const RunResult &outcome, const RunLimits &limits) const {
    if (outcome.end == RunEnd::cancelled) {
      std::string partial = outcome.output.text();
      host().call_fail(call, "cancelled",
                       "bash cancelled: the command and its process group were killed." +
                           (partial.empty() ? std::string() : " Output so far:\n" + partial),
                       AMP_CANCELLED);
      return;
    }
    const bool success = outcome.end == RunEnd::exited && outcome.exit_code == 0;
    json::object fields = result_fields(outcome);
    for (const auto &field : sandbox_fields()) fields[field.key()] = field.value();
    host().call_finish(call, AMP_OK,
                       tool_result(success, result_text(outcome, limits), std::move(fields)));
  }

  json::object sandbox_fields() const {
    json::object fields{{"sandboxed", sandbox_.sandbox.has_value()}};
    if (sandbox_.unavailable) fields["sandbox_unavailable"] = *sandbox_.unavailable;
    return fields;
  }

  void register_running(amp_call_id call, std::shared_ptr<Interrupt> interrupt) {
    std::lock_guard lock(running_mutex_);
    running_[call] = std::move(interrupt);
  }

  void unregister_running(amp_call_id call) {
    std::lock_guard lock(running_mutex_);
    running_.erase(call);
  }

  const BashConfig config_;
  const PathPolicy directories_;
  const SandboxChoice sandbox_;
  std::mutex running_mutex_;
  std::map<amp_call_id, std::shared_ptr<Interrupt>> running_;
};

}  // namespace
}  // namespace tool_bash

AMP_DEFINE_MODULE(tool_bash::BashTool, "tool-bash", "0.1.0",
                  "The bash tool: shell commands with a timeout, capped output and allow/deny lists");
