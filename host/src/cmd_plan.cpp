#include "commands.hpp"
#include "plan_loading.hpp"

#include "amplifier/module_loader.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/yaml_cpp.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace amplifier::host {
namespace {

struct MountCheck {
  const char *mount_point;
  amp_module_kind kind;
  const ModuleSpec *spec;
  std::string key;
};

std::vector<MountCheck> mounts_of(const MountPlan &plan) {
  std::vector<MountCheck> out{
      {"orchestrator", AMP_KIND_ORCHESTRATOR, &plan.orchestrator, "session.orchestrator"},
      {"context", AMP_KIND_CONTEXT, &plan.context, "session.context"}};
  auto add = [&](const char *point, amp_module_kind kind, const std::vector<ModuleSpec> &list) {
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back({point, kind, &list[i], fmt::format("{}[{}].module", point, i)});
  };
  add("providers", AMP_KIND_PROVIDER, plan.providers);
  add("tools", AMP_KIND_TOOL, plan.tools);
  add("hooks", AMP_KIND_HOOK, plan.hooks);
  return out;
}

// Each module must be found, load, and be of the kind its mount point needs.
std::vector<std::string> check_modules(const MountPlan &plan) {
  ModuleLoader loader;
  std::vector<std::string> problems;
  for (const auto &m : mounts_of(plan)) {
    PlanProblem where{m.spec->file.empty() ? plan.file : m.spec->file, m.spec->location, m.key, ""};
    try {
      auto module = loader.load(m.spec->module, m.spec->source);
      if (module->descriptor->kind != m.kind)
        where.message =
            fmt::format("module '{}' is a {} module, but {} needs a {} module", m.spec->module,
                        to_string(module->descriptor->kind), m.mount_point, to_string(m.kind));
    } catch (const std::exception &e) {
      where.message = e.what();
    }
    if (!where.message.empty()) problems.push_back(where.to_string());
  }
  return problems;
}

int check_plan(const std::string &file) {
  MountPlan plan;
  try {
    plan = load_mount_plan(file);
  } catch (const MountPlanError &e) {
    for (const auto &p : e.problems()) fmt::print(stderr, "{}\n", p.to_string());
    fmt::print(stderr, "amplifier: error: {}: {} problem(s)\n", file, e.problems().size());
    return 1;
  }
  for (const auto &w : plan.warnings) fmt::print(stderr, "warning: {}\n", w);
  auto problems = check_modules(plan);
  for (const auto &p : problems) fmt::print(stderr, "{}\n", p);
  if (!problems.empty()) {
    fmt::print(stderr, "amplifier: error: {}: {} problem(s)\n", file, problems.size());
    return 1;
  }
  fmt::print("{}: ok ({} provider(s), {} tool module(s), {} hook module(s){})\n", file,
             plan.providers.size(), plan.tools.size(), plan.hooks.size(),
             plan.warnings.empty() ? "" : fmt::format(", {} warning(s)", plan.warnings.size()));
  return 0;
}

// ---- plan show ---------------------------------------------------------------------------

int show_plan(const std::string &file) {
  try {
    MountPlan plan = load_mount_plan(file);
    for (const auto &w : plan.warnings) fmt::print(stderr, "warning: {}\n", w);
    fmt::print("{}", mount_plan_yaml(plan));
    return 0;
  } catch (const MountPlanError &e) {
    for (const auto &p : e.problems()) fmt::print(stderr, "{}\n", p.to_string());
    fmt::print(stderr, "amplifier: error: {}: {} problem(s)\n", file, e.problems().size());
    return 1;
  }
}

}  // namespace

void add_plan_command(CLI::App &app, int &exit_code) {
  CLI::App *plan = app.add_subcommand("plan", "Work with mount plans");
  plan->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  CLI::App *check = plan->add_subcommand("check",
                                         "Validate a mount plan: its YAML, its shape, "
                                         "and that every module exists with the right kind");
  check->add_option("file", *file, "The mount plan (YAML)")->required();
  check->callback([file, &exit_code] { exit_code = check_plan(*file); });
  CLI::App *show = plan->add_subcommand(
      "show",
      "Print a mount plan with its includes merged in, as YAML (each module entry notes "
      "the file and line it comes from)");
  show->add_option("file", *file, "The mount plan (YAML)")->required();
  show->callback([file, &exit_code] { exit_code = show_plan(*file); });
}

}  // namespace amplifier::host
