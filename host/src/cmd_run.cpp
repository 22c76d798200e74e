#include "approval_prompt.hpp"
#include "child_policy.hpp"
#include "commands.hpp"
#include "plan_loading.hpp"
#include "session_launch.hpp"
#include "default_plan.hpp"
#include "event_output.hpp"
#include "interrupts.hpp"
#include "modes.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/terminal_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include <unistd.h>

namespace amplifier::host {
namespace {

struct RunOptions {
  std::string plan_file;
  std::string format = "text";
  std::string prompt;
  std::string resume_id;  // --resume: continue this stored session
  std::string route;      // --route: a role of the plan's routing for this turn
  std::string mode;       // --mode: the mode the session runs in (modes.hpp)
};

constexpr int kExitFailure = 1;
constexpr int kExitCancelled = 130;
constexpr int kExitBudget = 3;  // the session's budget ended the turn (session.budget)

std::string read_prompt(const std::string &arg) {
  if (arg != "-") return arg;
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

void print_resume_hint(Session &session, const RunOptions &options) {
  if (!transcript_info(session)) return;
  std::string plan = options.plan_file.empty() ? "" : " --plan " + options.plan_file;
  std::fprintf(stderr, "amplifier: session %s is stored; continue it with: amplifier run%s "
                       "--resume %s \"...\"\n",
               session.id().c_str(), plan.c_str(), session.id().c_str());
}

int run(const RunOptions &options) {
  // Started before any other thread so that only the watcher receives SIGINT. It reaches the
  // session only through `relay`, which is cleared (waiting for a cancel in progress) before
  // the session is destroyed, on every path out.
  InterruptRelay relay;
  InterruptWatcher interrupts([&relay](int count) {
    if (relay.deliver(count)) return;
    std::fflush(stdout);  // what the session printed is not lost with the process
    std::_Exit(kExitCancelled);
  });

  std::string prompt = read_prompt(options.prompt);
  if (prompt.find_first_not_of(" \t\r\n") == std::string::npos)
    throw std::runtime_error("the prompt is empty");
  bool jsonl = options.format == "jsonl";
  MountPlan plan = resolve_plan(options.plan_file, /*with_display=*/!jsonl);
  print_plan_warnings(plan);
  ask_folder_trust_once(std::filesystem::current_path());
  // With the display mounted, it shows the answer; the host only adds what it lacks.
  const bool display = !jsonl && mounts_display(plan);

  LaunchOptions launch;
  if (!options.resume_id.empty())
    launch.session = resume_options(plan, !options.plan_file.empty(), options.resume_id);
  launch.keep_state = true;
  if (!options.mode.empty())
    launch.session.mode = discover_modes(plan, std::filesystem::current_path()).find(options.mode);
  auto output = PacedOutput::open(stdout);
  // Children (delegate) show their events where the session's go; their answers come back to
  // the parent as tool results, so the text output stays the parent's.
  launch.attach_to_children = [jsonl, output](Session &child) {
    if (jsonl) attach_jsonl_output(child.hooks(), output);
  };
  launch.approvals_at_terminal = true;
  const auto launched = launch_session(std::move(plan), std::move(launch));
  Session &session = *launched;
  auto text_state = std::make_shared<TextOutputState>();
  if (jsonl) attach_jsonl_output(session.hooks(), output);
  else if (!display) attach_text_output(session.hooks(), output, text_state);

  try {
    session.initialize();
  } catch (const SessionError &e) {
    std::fprintf(stderr, "amplifier: error: %s\n", e.what());
    return kExitFailure;
  }
  if (!options.resume_id.empty()) check_resumed_session(session);
  TurnResult result;
  {
    InterruptRelay::Scope cancelling(relay, [&session](int count) {
      if (count == 1)
        std::fprintf(stderr,
                     "\namplifier: cancelling after the running step "
                     "(Ctrl-C again to stop now)\n");
      session.cancel(count == 1 ? CancelLevel::Graceful : CancelLevel::Immediate);
    });
    boost::json::object turn_options;
    if (!options.route.empty()) turn_options["route"] = options.route;
    result = session.execute(prompt, turn_options);
  }
  forget_unstored_state(session);
  session.cleanup();
  output->close();  // everything the session printed is out before the host adds its lines

  if (!jsonl && !display) {
    bool streamed = text_state->streamed.load();
    if (!streamed && result.status != "error" && result.status != "budget_exceeded")
      std::fputs(terminal_safe(result.response).c_str(), stdout);
    bool ends_with_newline = streamed ? text_state->ends_with_newline.load()
                                      : (!result.response.empty() && result.response.back() == '\n');
    if (!ends_with_newline) std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (!jsonl) print_resume_hint(session, options);
  if (result.status == "error") {
    std::fprintf(stderr, "amplifier: error: %s\n", terminal_safe(error_message(result)).c_str());
    return kExitFailure;
  }
  if (result.status == "cancelled") {
    std::fprintf(stderr, "amplifier: the turn was cancelled\n");
    return kExitCancelled;
  }
  if (result.status == "budget_exceeded") {
    std::fprintf(stderr, "amplifier: %s\n", terminal_safe(result.response).c_str());
    return kExitBudget;
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App &app, int &exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App *cmd = app.add_subcommand("run", "Run one prompt through the plan's orchestrator");
  cmd->add_option("--plan", options->plan_file, "Mount plan (YAML); default: built-in offline plan")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", options->format, "Output: text (the answer as it streams) or jsonl "
                                               "(every kernel event, one JSON object per line)")
      ->check(CLI::IsMember({"text", "jsonl"}));
  cmd->add_option("--resume", options->resume_id,
                  "Continue stored session ID (its earlier messages come first; the plan's "
                  "context must keep transcripts, like context-persistent or context-postgres)");
  cmd->add_option("--route", options->route,
                  "Ask this turn of a role of the plan's routing (e.g. fast), over the loop's");
  cmd->add_option("--mode", options->mode,
                  "Run in this mode: plan, review, explore, or one of the plan's or your own "
                  "(tools it refuses are answered with an error and never run)");
  cmd->add_option("prompt", options->prompt,
                  "The prompt; '-' reads it from standard input; none on a terminal opens an "
                  "interactive session (as `amplifier chat`)");
  cmd->callback([options, &exit_code] {
    try {
      if (options->prompt.empty() && options->resume_id.empty() && ::isatty(STDIN_FILENO) &&
          ::isatty(STDOUT_FILENO)) {
        exit_code = run_chat(options->plan_file, options->mode);
        return;
      }
      if (options->prompt.empty())
        throw std::runtime_error("no prompt given: pass one, or '-' to read it from standard "
                                 "input (without one, a terminal opens an interactive session)");
      exit_code = run(*options);
    } catch (const MountPlanError &e) {
      for (const auto &p : e.problems())
        std::fprintf(stderr, "amplifier: error: %s\n", p.to_string().c_str());
      exit_code = kExitFailure;
    } catch (const std::exception &e) {
      std::fprintf(stderr, "amplifier: error: %s\n", e.what());
      exit_code = kExitFailure;
    }
  });
}

}  // namespace amplifier::host
