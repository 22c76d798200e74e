// hooks-shell: runs commands on hook events, configured in Claude Code's hook format, so that the
// hooks people already wrote for Claude Code run here unchanged (hook_settings.hpp for the
// format, hook_run.hpp for how a command's answer is read, claude_names.hpp for tool names).
//
//   Claude Code event   amplifier event                what an answer can do here
//   PreToolUse          tool:pre (before approvals)    block (the model reads why), ask the
//                                                      user, rewrite the input, add context
//   PostToolUse         tool:post                      feed text back to the model, add context
//   UserPromptSubmit    prompt:submit                  block the prompt, add context
//   Stop                turn:stop                      keep the turn going with a reason
//   SessionStart        session:start/session:resume   add context (to the first prompt)
//   SessionEnd          session:end                    nothing (it runs, for its side effects)
// `"continue": false` ends the turn after the step (the call it came with does not run).
//
// Trust (README "Security"): which commands run is the operator's to say. Read are: the plan's
// `command_hooks` and `settings_files`, the operator's own `$XDG_CONFIG_HOME/amplifier/hooks.json`
// and, with `claude_files: true`, `~/.claude/settings.json`; a project folder's
// `.amplifier/hooks.json` (and, with claude_files, its `.claude/settings.json` and
// `.claude/settings.local.json`) only when the operator trusts the folder (`amplifier trust`),
// since a cloned repository is not the operator. A serve client's or an agent's plan cannot name
// commands or files here (their keys grant: host/runtime/plan_trust.hpp). The model's and the
// user's text reach a command only as JSON on its stdin. Commands run in the project folder (the
// session's confined folder when it has one), in a session of their own, with the host's
// environment plus CLAUDE_PROJECT_DIR.
//
// A pre-tool hook may deny, and an approval hook still decides after it: a hook's "allow" never
// skips hooks-approval (it registers at -1100, before hooks-approval's -1000, so the approval
// judges the rewritten input).
#include "claude_names.hpp"
#include "hook_run.hpp"
#include "hook_settings.hpp"

#include "amplifier/folder_trust.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/user_dirs.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <filesystem>
#include <mutex>
#include <optional>

namespace hooks_shell {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr const char *kName = "hooks-shell";
// Before hooks-approval (-1000): a rewrite is what the approval judges, a block asks nobody.
constexpr std::int32_t kToolPrePriority = -1100;

struct ShellConfig {
  HookTable table;
  fs::path project_dir;
  std::chrono::seconds timeout{600};        // Claude Code's default for command hooks
  std::chrono::seconds prompt_timeout{30};  // and for UserPromptSubmit
};

void add_project_file(HookTable &table, const fs::path &file, const fs::path &project,
                      const Warn &warn) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return;
  // A cloned repository's hooks would run as the operator: only a trusted folder's are read.
  if (!amplifier::folder_trust::is_trusted(project)) {
    warn(file.string() + " ignored: its folder is not trusted (run `amplifier trust " +
         project.string() + "` to use it)");
    return;
  }
  add_settings_file(table, file.string(), warn);
}

ShellConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "hooks-shell config");
  const Warn warn = [&host](const std::string &message) { host.warn(std::string(kName) + ": " + message); };
  ShellConfig config;
  config.timeout = std::chrono::seconds(reader.get_int("timeout_seconds", 600, 1, 86'400));
  config.prompt_timeout = std::chrono::seconds(reader.get_int("prompt_timeout_seconds", 30, 1, 86'400));
  config.project_dir = ms::expand_home(reader.get_string("working_dir", fs::current_path().string()));
  // The host's confinement wins over the plan (README "Security").
  if (auto confined = ms::confined_folder_of(host)) config.project_dir = *confined;
  const bool user_config = reader.get_bool("user_config", true);
  const bool project_config = reader.get_bool("project_config", true);
  const bool claude_files = reader.get_bool("claude_files", false);
  const std::vector<std::string> files = reader.get_string_list("settings_files", {});
  const json::value *inline_hooks = reader.get_value("command_hooks");
  reader.warn_unknown_keys(host);

  try {
    HookTable &table = config.table;
    if (user_config) add_settings_file(table, (amplifier::user_dirs::config() / "hooks.json").string(), warn);
    if (claude_files) add_settings_file(table, (ms::home_directory() / ".claude" / "settings.json").string(), warn);
    for (const auto &file : files) {
      const fs::path path = ms::expand_home(file);
      std::error_code ec;
      if (!fs::exists(path, ec)) throw std::invalid_argument("settings_files: " + path.string() + " does not exist");
      add_settings_file(table, path.string(), warn);
    }
    if (project_config) add_project_file(table, config.project_dir / ".amplifier" / "hooks.json", config.project_dir, warn);
    if (claude_files) {
      add_project_file(table, config.project_dir / ".claude" / "settings.json", config.project_dir, warn);
      add_project_file(table, config.project_dir / ".claude" / "settings.local.json", config.project_dir, warn);
    }
    if (inline_hooks) add_hooks(table, *inline_hooks, "command_hooks", warn);
  } catch (const std::invalid_argument &e) {
    throw std::invalid_argument(std::string("hooks-shell config: ") + e.what());
  }
  return config;
}

std::string joined(const std::string &a, const std::string &b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "\n" + b;
}

class ShellHook final : public amp::sdk::HookModule {
 public:
  ShellHook(amp::sdk::Host host, std::string_view config_json)
      : HookModule(host), config_(read_config(host, config_json)) {
    // Last: once registered, the host may call a handler with `this` at any time.
    using K = HookEventKind;
    if (has(K::pre_tool_use)) subscribe("tool:pre", kToolPrePriority, &dispatch<&ShellHook::on_tool_pre>);
    if (has(K::post_tool_use)) subscribe("tool:post", 0, &dispatch<&ShellHook::on_tool_post>);
    if (has(K::user_prompt_submit) || has(K::session_start))
      subscribe("prompt:submit", 0, &dispatch<&ShellHook::on_prompt_submit>);
    if (has(K::stop)) subscribe("turn:stop", 0, &dispatch<&ShellHook::on_turn_stop>);
    if (has(K::session_start)) {
      subscribe("session:start", 0, &dispatch<&ShellHook::on_session_start>);
      subscribe("session:resume", 0, &dispatch<&ShellHook::on_session_resume>);
    }
    if (has(K::session_end)) subscribe("session:end", 0, &dispatch<&ShellHook::on_session_end>);
  }

 private:
  bool has(HookEventKind kind) const { return !config_.table.of(kind).empty(); }

  template <std::string (ShellHook::*handle)(const json::object &)>
  static amp_status dispatch(void *self, amp_str, amp_str data_json, amp_writer *result) noexcept {
    auto &hook = *static_cast<ShellHook *>(self);
    try {
      const json::object data = ms::parse_json_object(amp::sdk::from_amp(data_json), "event data");
      amp::sdk::write_to(result, (hook.*handle)(data));
    } catch (const std::exception &e) {
      // A hook that could not run decides nothing: the step goes on, and the user is told.
      hook.host().warn(std::string(kName) + ": " + e.what());
    }
    return AMP_OK;
  }

  void subscribe(const char *event, std::int32_t priority,
                 amp_status (*handler)(void *, amp_str, amp_str, amp_writer *)) {
    if (host().hook_register(event, priority, kName, handler, this) != AMP_OK)
      throw std::runtime_error(std::string("hooks-shell: registering the ") + event + " handler failed");
  }

  // The fields every hook's input has.
  json::object common(HookEventKind kind, const json::object &data) const {
    return json::object{{"session_id", ms::string_at(data, "session_id")},
                        {"transcript_path", ""},
                        {"cwd", config_.project_dir.string()},
                        {"hook_event_name", claude_name(kind)},
                        {"permission_mode", "default"}};
  }

  // The commands of the groups of `kind` whose matcher takes one of `names`.
  std::vector<const HookCommand *> matching(HookEventKind kind, std::initializer_list<std::string_view> names) const {
    std::vector<const HookCommand *> out;
    for (const auto &group : config_.table.of(kind)) {
      bool hit = false;
      for (auto name : names) hit = hit || group.matcher.matches(name);
      if (!hit) continue;
      for (const auto &command : group.commands) out.push_back(&command);
    }
    return out;
  }

  Verdict run(HookEventKind kind, const std::vector<const HookCommand *> &commands, const json::object &input) {
    RunSettings settings{config_.project_dir,
                         kind == HookEventKind::user_prompt_submit ? config_.prompt_timeout : config_.timeout,
                         [host = host()] { return host.cancel_state(0) != AMP_CANCEL_NONE; }};
    Verdict verdict = judge(kind, run_commands(commands, json::serialize(input), settings));
    for (const auto &message : verdict.for_user)
      host().warn(std::string(kName) + " (" + std::string(claude_name(kind)) + "): " + message);
    return verdict;
  }

  static std::string stop_reason(const Verdict &v) {
    if (!v.stop_reason.empty()) return v.stop_reason;
    return v.feedback.empty() ? std::string("a hook said not to continue") : v.feedback;
  }

  std::string on_tool_pre(const json::object &data) {
    const std::string tool(ms::string_at(data, "tool_name"));
    const std::string claude_tool = claude_tool_name(tool);
    auto commands = matching(HookEventKind::pre_tool_use, {claude_tool, tool});
    if (commands.empty()) return {};
    json::object input = common(HookEventKind::pre_tool_use, data);
    const json::object *tool_input = ms::object_at(data, "tool_input");
    input["tool_name"] = claude_tool;
    input["tool_input"] = claude_tool_input(tool, tool_input ? *tool_input : json::object{});
    input["tool_use_id"] = ms::string_at(data, "tool_call_id");
    input["amplifier_tool_name"] = tool;
    const Verdict v = run(HookEventKind::pre_tool_use, commands, input);
    if (v.stop)
      return json::serialize(json::object{{"action", "deny"}, {"reason", stop_reason(v)}, {"end_turn", stop_reason(v)}});
    if (v.block) return deny(v.feedback.empty() ? "blocked by a PreToolUse hook" : v.feedback);
    // A rewrite goes in "updated_tool_input" (the call runs with it) and, as a modify, into the
    // payload the hooks after this one (hooks-approval) judge.
    std::optional<json::object> rewritten;
    if (v.updated_input) rewritten = amplifier_tool_input(tool, *v.updated_input);
    if (v.ask) {
      json::object result{
          {"action", "ask_user"},
          {"approval_prompt", "A hook asks whether " + tool + " may run" + (v.ask_reason.empty() ? std::string() : ": " + v.ask_reason)},
          {"approval_default", "deny"}};
      if (rewritten) result["updated_tool_input"] = *rewritten;
      return json::serialize(result);
    }
    if (rewritten) {
      if (!v.context.empty()) host().warn(std::string(kName) + ": additionalContext given with updatedInput is not added");
      json::object payload = data;
      payload["tool_input"] = *rewritten;
      return json::serialize(json::object{
          {"action", "modify"}, {"data", std::move(payload)}, {"updated_tool_input", *rewritten}});
    }
    return inject(v.context);
  }

  std::string on_tool_post(const json::object &data) {
    const std::string tool(ms::string_at(data, "tool_name"));
    const std::string claude_tool = claude_tool_name(tool);
    auto commands = matching(HookEventKind::post_tool_use, {claude_tool, tool});
    if (commands.empty()) return {};
    json::object input = common(HookEventKind::post_tool_use, data);
    const json::object *tool_input = ms::object_at(data, "tool_input");
    input["tool_name"] = claude_tool;
    input["tool_input"] = claude_tool_input(tool, tool_input ? *tool_input : json::object{});
    input["tool_use_id"] = ms::string_at(data, "tool_call_id");
    if (const json::value *result = data.if_contains("result")) input["tool_response"] = *result;
    input["amplifier_tool_name"] = tool;
    const Verdict v = run(HookEventKind::post_tool_use, commands, input);
    // The tool already ran: a block is text the model reads after the result.
    json::object result = as_object(inject(joined(v.block ? v.feedback : std::string(), v.context)));
    if (v.stop) result["end_turn"] = stop_reason(v);
    return json::serialize(result);
  }

  // A delegated child's turn is not the user's: Claude Code runs only the tool hooks in its
  // subagents (their stop is SubagentStop, which amplifier does not run).
  static bool in_child_session(const json::object &data) { return !ms::string_at(data, "parent_id").empty(); }

  std::string on_prompt_submit(const json::object &data) {
    if (in_child_session(data)) return {};
    auto commands = matching(HookEventKind::user_prompt_submit, {""});
    Verdict v;
    if (!commands.empty()) {
      json::object input = common(HookEventKind::user_prompt_submit, data);
      input["prompt"] = ms::string_at(data, "prompt");
      v = run(HookEventKind::user_prompt_submit, commands, input);
    }
    // A blocked prompt is not stored, so the session's start context waits for the next one.
    if (v.stop) return deny(stop_reason(v));
    if (v.block) return deny(v.feedback.empty() ? "blocked by a UserPromptSubmit hook" : v.feedback);
    std::string from_session_start;
    {
      std::lock_guard lock(mutex_);
      from_session_start = std::exchange(session_start_context_, {});
    }
    return inject(joined(from_session_start, v.context));
  }

  std::string on_turn_stop(const json::object &data) {
    if (in_child_session(data)) return {};
    json::object input = common(HookEventKind::stop, data);
    const json::value *active = data.if_contains("stop_hook_active");
    input["stop_hook_active"] = active && active->is_bool() && active->get_bool();
    input["last_assistant_message"] = ms::string_at(data, "response");
    const Verdict v = run(HookEventKind::stop, matching(HookEventKind::stop, {""}), input);
    // "continue": false wins: the turn stops. A block keeps it going with the reason.
    if (v.stop || !v.block) return {};
    return deny(v.feedback.empty() ? "A Stop hook asked you to continue." : v.feedback);
  }

  std::string on_session_start(const json::object &data) { return session_started(data, "startup"); }
  std::string on_session_resume(const json::object &data) { return session_started(data, "resume"); }

  // The context a SessionStart hook gives is kept for the first prompt:submit (session:start
  // comes just before it, and its result is not read).
  std::string session_started(const json::object &data, const std::string &source) {
    if (in_child_session(data)) return {};
    auto commands = matching(HookEventKind::session_start, {source});
    if (commands.empty()) return {};
    json::object input = common(HookEventKind::session_start, data);
    input["source"] = source;
    const Verdict v = run(HookEventKind::session_start, commands, input);
    if (!v.context.empty()) {
      std::lock_guard lock(mutex_);
      session_start_context_ = joined(session_start_context_, v.context);
    }
    return {};
  }

  std::string on_session_end(const json::object &data) {
    if (in_child_session(data)) return {};
    json::object input = common(HookEventKind::session_end, data);
    input["reason"] = "other";
    run(HookEventKind::session_end, matching(HookEventKind::session_end, {""}), input);
    return {};
  }

  static std::string deny(const std::string &reason) {
    return json::serialize(json::object{{"action", "deny"}, {"reason", reason}});
  }
  // The text as a context injection the conversation keeps (a user message after the step), or
  // "continue" when there is none.
  static std::string inject(const std::string &text) {
    if (text.empty()) return R"({"action":"continue"})";
    return json::serialize(json::object{{"action", "inject_context"},
                                        {"context_injection", text},
                                        {"context_injection_role", "user"}});
  }
  static json::object as_object(const std::string &result) {
    return ms::parse_json_object(result, "hook result");
  }

  const ShellConfig config_;
  std::mutex mutex_;
  std::string session_start_context_;  // guarded by mutex_: for the next prompt:submit
};

}  // namespace
}  // namespace hooks_shell

AMP_DEFINE_MODULE(hooks_shell::ShellHook, "hooks-shell", "0.1.0",
                  "Runs commands on hook events, configured in Claude Code's hook format");
