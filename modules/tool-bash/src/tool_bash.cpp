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
// timed_out, output_bytes (all the command printed), elided_bytes.
// An immediate cancellation ends the call with status AMP_CANCELLED (kind "cancelled").
//
// THREADS: the host runs execute on its worker threads, concurrently; each call runs its
// command synchronously inside execute. cancel() may come from any thread; the running calls
// are found through a mutex-guarded map.
#include "amplifier/module_support/command_match.hpp"
#include "amplifier/module_support/path_policy.hpp"
#include "process_runner.hpp"

#include "amplifier/model.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

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
};

BashConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-bash config");
  BashConfig config;
  config.working_dir =
      fs::absolute(ms::expand_home(reader.get_string("working_dir", fs::current_path().string())));
  config.allowed_paths = reader.get_string_list("allowed_paths", {"."});
  config.allow = reader.get_string_list("allow", {});
  config.deny = reader.get_string_list("deny", {});
  config.max_timeout_seconds = reader.get_number("max_timeout_seconds", config.max_timeout_seconds, 0.001, 86'400);
  config.timeout_seconds =
      reader.get_number("timeout_seconds", std::min(config.timeout_seconds, config.max_timeout_seconds),
                        0.001, config.max_timeout_seconds);
  config.kill_grace_seconds = reader.get_number("kill_grace_seconds", config.kill_grace_seconds, 0, 60);
  config.max_output_bytes = static_cast<std::size_t>(
      reader.get_int("max_output_bytes", static_cast<std::int64_t>(config.max_output_bytes), 256, 64 << 20));
  reader.warn_unknown_keys(host);
  std::error_code ec;
  if (!fs::is_directory(config.working_dir, ec))
    throw reader.error("working_dir", "is not an existing directory: " + config.working_dir.string());
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

json::object bash_spec(const BashConfig &config) {
  const std::string description =
      "Run a shell command with /bin/bash -c and return its output (stdout and stderr "
      "interleaved) followed by its exit code. Long output keeps its beginning and end. The "
      "command runs in the working directory unless working_dir says otherwise, with stdin "
      "empty, and is killed with its whole process group after timeout_seconds (default " +
      format_seconds(config.timeout_seconds) + ", at most " +
      format_seconds(config.max_timeout_seconds) +
      "). Background processes it starts are ended when it exits.";
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

std::string tool_result(bool success, const std::string &text, json::object extra = {}) {
  amplifier::ToolResult result;
  result.success = success;
  result.output = json::string(text);
  if (!success) result.error = amplifier::ToolError{text, {}};
  result.extra = std::move(extra);
  return json::serialize(amplifier::to_json(result));
}

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

class BashTool final : public amp::sdk::ToolModule {
 public:
  BashTool(amp::sdk::Host host, std::string_view config_json)
      : BashTool(host, read_config(host, config_json)) {}

  std::string list_tools() override { return json::serialize(json::array{bash_spec(config_)}); }

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
        directories_(config_.working_dir, config_.allowed_paths, "bash working directory") {}

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
      outcome = run_command(request.command, request.working_dir, request.limits, *interrupt,
                            [&] { return host().cancel_state(call) >= AMP_CANCEL_IMMEDIATE; });
    } catch (const SpawnError &e) {
      unregister_running(call);
      host().call_finish(call, AMP_OK, tool_result(false, e.what()));
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
    host().call_finish(call, AMP_OK, tool_result(success, result_text(outcome, limits), result_fields(outcome)));
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
  std::mutex running_mutex_;
  std::map<amp_call_id, std::shared_ptr<Interrupt>> running_;
};

}  // namespace
}  // namespace tool_bash

AMP_DEFINE_MODULE(tool_bash::BashTool, "tool-bash", "0.1.0",
                  "The bash tool: shell commands with a timeout, capped output and allow/deny lists");
