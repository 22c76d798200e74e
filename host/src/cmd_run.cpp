#include "commands.hpp"
#include "default_plan.hpp"
#include "event_output.hpp"
#include "interrupts.hpp"

#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

namespace amplifier::host {
namespace {

struct RunOptions {
  std::string plan_file;
  std::string format = "text";
  std::string prompt;
};

constexpr int kExitFailure = 1;
constexpr int kExitCancelled = 130;

std::string read_prompt(const std::string &arg) {
  if (arg != "-") return arg;
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

MountPlan resolve_plan(const std::string &plan_file) {
  if (!plan_file.empty()) return load_mount_plan(plan_file);
  DefaultPlan plan = default_plan();
  std::fprintf(stderr, "amplifier: %s\n", plan.description.c_str());
  return parse_mount_plan(plan.yaml, "<built-in default plan>");
}

void print_plan_warnings(const MountPlan &plan) {
  for (const auto &w : plan.warnings) std::fprintf(stderr, "amplifier: warning: %s\n", w.c_str());
}

std::string error_message(const TurnResult &result) {
  if (result.error.is_object()) {
    const auto &e = result.error.as_object();
    std::string kind = e.contains("kind") && e.at("kind").is_string()
                           ? std::string(e.at("kind").as_string()) : "error";
    std::string message = e.contains("message") && e.at("message").is_string()
                              ? std::string(e.at("message").as_string())
                              : boost::json::serialize(e);
    return fmt::format("{}: {}", kind, message);
  }
  return result.response.empty() ? "the turn failed" : result.response;
}

int run(const RunOptions &options) {
  // Started before any other thread so that only the watcher receives SIGINT.
  std::atomic<Session *> running{nullptr};
  InterruptWatcher interrupts([&running](int count) {
    Session *session = running.load();
    if (!session) std::_Exit(kExitCancelled);
    if (count == 1)
      std::fprintf(stderr, "\namplifier: cancelling after the running step "
                           "(Ctrl-C again to stop now)\n");
    session->cancel(count == 1 ? CancelLevel::Graceful : CancelLevel::Immediate);
  });

  std::string prompt = read_prompt(options.prompt);
  if (prompt.find_first_not_of(" \t\r\n") == std::string::npos)
    throw std::runtime_error("the prompt is empty");
  MountPlan plan = resolve_plan(options.plan_file);
  print_plan_warnings(plan);

  Session session(std::move(plan));
  auto streamed = std::make_shared<std::atomic<bool>>(false);
  bool jsonl = options.format == "jsonl";
  if (jsonl) attach_jsonl_output(session.hooks(), stdout);
  else attach_text_output(session.hooks(), stdout, streamed);

  try {
    session.initialize();
  } catch (const SessionError &e) {
    std::fprintf(stderr, "amplifier: error: %s\n", e.what());
    return kExitFailure;
  }
  running = &session;
  TurnResult result = session.execute(prompt);
  running = nullptr;
  session.cleanup();

  if (!jsonl) {
    if (!streamed->load() && result.status != "error") std::fputs(result.response.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (result.status == "error") {
    std::fprintf(stderr, "amplifier: error: %s\n", error_message(result).c_str());
    return kExitFailure;
  }
  if (result.status == "cancelled") {
    std::fprintf(stderr, "amplifier: the turn was cancelled\n");
    return kExitCancelled;
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
  cmd->add_option("prompt", options->prompt, "The prompt; '-' reads it from standard input")
      ->required();
  cmd->callback([options, &exit_code] {
    try {
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
