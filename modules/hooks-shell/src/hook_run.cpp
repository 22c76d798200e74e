#include "hook_run.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/process/environment.hpp"
#include "amplifier/process/run.hpp"

#include <boost/json/parse.hpp>

#include <future>
#include <map>

namespace hooks_shell {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
namespace proc = amplifier::process;

// Claude Code caps what a hook's output puts into the conversation at 10,000 characters.
constexpr std::size_t kMaxTextBytes = 10'000;
constexpr std::size_t kMaxOutputBytes = 1 << 20;
constexpr std::size_t kLabelBytes = 80;

std::string capped(std::string text) {
  if (text.size() > kMaxTextBytes) {
    text.resize(ms::utf8_prefix_length(text, kMaxTextBytes));
    text += "\n[cut at 10,000 bytes]";
  }
  return text;
}

std::string trimmed(std::string text) {
  const auto last = text.find_last_not_of(" \t\r\n");
  text.erase(last == std::string::npos ? 0 : last + 1);
  const auto first = text.find_first_not_of(" \t\r\n");
  return first == std::string::npos ? std::string() : text.substr(first);
}

std::string label_of(const HookCommand &command) {
  std::string text = command.command;
  if (text.empty())
    for (const auto &arg : command.args) text += (text.empty() ? "" : " ") + arg;
  if (text.size() > kLabelBytes) text = text.substr(0, ms::utf8_prefix_length(text, kLabelBytes)) + "...";
  return text;
}

CommandAnswer run_one(const HookCommand &command, const std::string &input_json,
                      const RunSettings &settings) {
  CommandAnswer answer;
  answer.label = label_of(command);
  proc::Spec spec;
  spec.argv = command.args.empty() ? std::vector<std::string>{"/bin/sh", "-c", command.command}
                                   : command.args;
  const std::string dir = settings.project_dir.string();
  spec.environment = proc::environment_with({{"CLAUDE_PROJECT_DIR", dir}, {"AMPLIFIER_PROJECT_DIR", dir}});
  spec.working_dir = settings.project_dir;
  // No controlling terminal: a hook cannot type into the user's terminal.
  spec.grouping = proc::Grouping::own_session;
  proc::RunOptions options;
  options.input = input_json;
  options.timeout = command.timeout.value_or(settings.timeout);
  options.max_output_bytes = kMaxOutputBytes;
  options.cancelled = settings.cancelled;
  try {
    proc::RunOutcome outcome = proc::run_to_end(std::move(spec), options);
    answer.timed_out = outcome.timed_out;
    answer.cancelled = outcome.cancelled;
    answer.exit_code = outcome.exit_code();
    answer.out = std::move(outcome.out);
    answer.err = std::move(outcome.err);
    if (answer.exit_code == -1 && !answer.timed_out && !answer.cancelled)
      answer.err += (answer.err.empty() ? "" : "\n") + proc::describe_wait_status(outcome.wait_status);
  } catch (const proc::SpawnError &e) {
    answer.failed_to_start = true;
    answer.err = e.what();
    return answer;
  }
  const std::string out = trimmed(answer.out);
  if (!out.empty() && out.front() == '{') {
    json::error_code ec;
    json::value parsed = json::parse(out, ec);
    if (!ec && parsed.is_object()) answer.json = std::move(parsed.get_object());
  }
  return answer;
}

std::string string_in(const json::object &o, std::string_view key) {
  return std::string(ms::string_at(o, key));
}

void add_line(std::string &to, const std::string &text) {
  if (text.empty()) return;
  if (!to.empty()) to += '\n';
  to += text;
}

// Reads one command's JSON answer into the verdict.
void read_json(HookEventKind kind, const CommandAnswer &answer, Verdict &verdict) {
  const json::object &o = *answer.json;
  if (const json::value *go_on = o.if_contains("continue"); go_on && go_on->is_bool() && !go_on->get_bool()) {
    verdict.stop = true;
    add_line(verdict.stop_reason, string_in(o, "stopReason"));
  }
  if (std::string message = string_in(o, "systemMessage"); !message.empty())
    verdict.for_user.push_back(std::move(message));
  // The older top-level form: "block" (for every event that can block) and "approve".
  if (ms::string_at(o, "decision") == "block") {
    verdict.block = true;
    add_line(verdict.feedback, capped(string_in(o, "reason")));
  }
  const json::object *specific = ms::object_at(o, "hookSpecificOutput");
  if (!specific) return;
  add_line(verdict.context, capped(string_in(*specific, "additionalContext")));
  if (kind != HookEventKind::pre_tool_use) return;
  const std::string_view decision = ms::string_at(*specific, "permissionDecision");
  const std::string reason = capped(string_in(*specific, "permissionDecisionReason"));
  if (decision == "deny") {
    verdict.block = true;
    add_line(verdict.feedback, reason);
  } else if (decision == "ask") {
    verdict.ask = true;
    add_line(verdict.ask_reason, reason);
  }
  if (const json::object *input = ms::object_at(*specific, "updatedInput"); input && !verdict.updated_input)
    verdict.updated_input = *input;
}

bool plain_stdout_is_context(HookEventKind kind) {
  return kind == HookEventKind::user_prompt_submit || kind == HookEventKind::session_start;
}

}  // namespace

std::vector<CommandAnswer> run_commands(const std::vector<const HookCommand *> &commands,
                                        const std::string &input_json, const RunSettings &settings) {
  // Identical commands (from two settings files, say) run once; each keeps its place.
  std::vector<const HookCommand *> unique;
  std::map<std::string, std::size_t> seen;
  for (const HookCommand *command : commands)
    if (seen.emplace(command->key(), unique.size()).second) unique.push_back(command);
  std::vector<CommandAnswer> answers(unique.size());
  // The first runs on this thread, the others each on a thread of its own: all at once, as
  // Claude Code runs an event's hooks.
  std::vector<std::future<CommandAnswer>> others;
  for (std::size_t i = 1; i < unique.size(); ++i)
    others.push_back(std::async(std::launch::async, run_one, std::cref(*unique[i]),
                                std::cref(input_json), std::cref(settings)));
  if (!unique.empty()) answers[0] = run_one(*unique[0], input_json, settings);
  for (std::size_t i = 1; i < unique.size(); ++i) answers[i] = others[i - 1].get();
  return answers;
}

Verdict judge(HookEventKind kind, const std::vector<CommandAnswer> &answers) {
  Verdict verdict;
  for (const auto &answer : answers) {
    if (answer.failed_to_start) {
      verdict.for_user.push_back("hook `" + answer.label + "` could not start: " + answer.err);
      continue;
    }
    if (answer.cancelled) {
      verdict.for_user.push_back("hook `" + answer.label + "` was stopped: the turn was cancelled");
      continue;
    }
    if (answer.timed_out) {
      // Claude Code: a hook that times out is cancelled, its output thrown away, and it does
      // not block.
      verdict.for_user.push_back("hook `" + answer.label + "` timed out; its answer is ignored");
      continue;
    }
    if (answer.exit_code == 2) {
      verdict.block = true;
      const std::string why = trimmed(answer.err);
      add_line(verdict.feedback, capped(why.empty() ? "blocked by hook `" + answer.label + "`" : why));
    }
    if (answer.json) {
      read_json(kind, answer, verdict);
      continue;
    }
    if (answer.exit_code == 0) {
      if (plain_stdout_is_context(kind)) add_line(verdict.context, capped(trimmed(answer.out)));
      continue;
    }
    if (answer.exit_code != 2) {
      const std::string why = trimmed(answer.err);
      verdict.for_user.push_back("hook `" + answer.label + "` failed (" +
                                 (answer.exit_code >= 0 ? "exit code " + std::to_string(answer.exit_code)
                                                        : std::string("no exit code")) +
                                 ")" + (why.empty() ? std::string() : ": " + capped(why)));
    }
  }
  return verdict;
}

}  // namespace hooks_shell
