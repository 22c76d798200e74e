#include "check_process.hpp"

#include "amplifier/leak_check.hpp"
#include "amplifier/module_loader.hpp"
#include "checks.hpp"
#include "isolation.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

extern char **environ;

namespace amplifier::host::validate {
namespace fs = std::filesystem;

// ---- child side ----------------------------------------------------------------------

void run_resolve_group(const std::string &id, const ChildReporter &reporter) {
  reporter.running("resolve");
  try {
    ModuleLoader loader;
    auto module = loader.load(id);
    reporter.fact({{"file", module->file.string()}});
    reporter.result(pass("resolve", fmt::format("'{}' is {}", id, module->file.string())));
  } catch (const std::exception &e) {
    // The host refuses it; the file it found, if any, is still worth checking.
    ModuleLoader loader;
    const auto dirs = loader.search_path();
    for (const auto &dir : dirs) {
      std::error_code ec;
      if (fs::path candidate = dir / (id + ".so"); fs::is_regular_file(candidate, ec)) {
        reporter.fact({{"file", fs::absolute(candidate).string()}});
        break;
      }
    }
    reporter.result(fail("resolve", one_line(e.what())));
  }
}

void run_check_process(const std::string &group, const std::string &target,
                       const boost::json::object &config) {
  ChildReporter reporter(kChannelFd);
  CheckContext context{target, config, &reporter};
  try {
    if (group == "resolve")
      run_resolve_group(target, reporter);
    else if (group == "elf")
      run_elf_group(context);
    else if (group == "descriptor")
      run_descriptor_group(context);
    else if (group == "instance")
      run_instance_group(context);
    else if (!run_behavioral_check(group, context))
      reporter.result(fail(group, "no such check"));
  } catch (const std::exception &e) {
    // Whatever check was running is the one that failed; the parent knows which.
    std::fprintf(stderr, "check process: %s\n", e.what());
    std::fflush(stderr);
    std::_Exit(3);
  }
  std::fflush(stderr);
  // What the check leaked is reported in an ASan build (a failed check's kernel is kept, not
  // leaked: keep_if_failed). Not on the exception path above, which abandons a check midway.
  check_leaks_before_exit();
  std::_Exit(0);
}

// ---- parent side ---------------------------------------------------------------------

namespace {

// The environment of a check's process: ours, with every home-like folder in the scratch
// folder (a module under test must not write into the user's files) and relative module
// path entries made absolute (the process runs in the scratch folder).
std::vector<std::string> check_environment(const fs::path &scratch) {
  const std::vector<std::pair<std::string, fs::path>> homes = {
      {"HOME", scratch / "home"},
      {"XDG_DATA_HOME", scratch / "home/.local/share"},
      {"XDG_CONFIG_HOME", scratch / "home/.config"},
      {"XDG_CACHE_HOME", scratch / "home/.cache"},
      {"XDG_STATE_HOME", scratch / "home/.local/state"},
      {"AMPLIFIER_HOME", scratch / "amplifier-home"}};
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    if (std::any_of(homes.begin(), homes.end(), [&](auto &h) { return h.first == name; })) continue;
    if (name == "AMPLIFIER_MODULE_PATH") {
      std::string value, rest = entry.substr(name.size() + 1);
      for (std::size_t start = 0; start <= rest.size();) {
        std::size_t colon = std::min(rest.find(':', start), rest.size());
        std::string part = rest.substr(start, colon - start);
        if (!part.empty()) value += (value.empty() ? "" : ":") + fs::absolute(part).string();
        start = colon + 1;
      }
      entry = name + "=" + value;
    }
    env.push_back(std::move(entry));
  }
  for (const auto &[name, dir] : homes) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    env.push_back(name + "=" + dir.string());
  }
  return env;
}

fs::path own_executable() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("/proc/self/exe") : self;
}

std::string crash_reason(const IsolatedRun &run, std::chrono::milliseconds budget) {
  std::string why;
  if (run.timed_out)
    why = fmt::format("hung: no result within the {} s budget, killed",
                      std::chrono::duration_cast<std::chrono::seconds>(budget).count());
  else if (run.signal)
    why = "crashed with " + describe_signal(run.signal);
  else
    why = fmt::format("the check process exited with code {}", run.exit_code);
  // The last line of standard error usually says what went wrong (an abort's message).
  std::string tail = run.stderr_tail;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (auto nl = tail.rfind('\n'); nl != std::string::npos) tail = tail.substr(nl + 1);
  if (!tail.empty()) why += "; stderr: " + tail;
  return one_line(why, 300);
}

}  // namespace

GroupOutcome run_group(const std::string &group, const std::string &target,
                       const std::vector<std::string> &expected,
                       const CheckProcessOptions &options) {
  IsolationOptions isolation;
  isolation.argv = {own_executable().string(),
                    "module",
                    "validate",
                    "--internal-group",
                    group,
                    "--config",
                    boost::json::serialize(options.config),
                    target};
  isolation.environment = check_environment(options.scratch_dir);
  isolation.working_dir = options.scratch_dir;
  isolation.budget = options.budget;
  IsolatedRun run = run_isolated(isolation);
  ChildReport report = parse_child_output(run.channel_text);
  GroupOutcome outcome{report.results, report.facts};
  const bool ended_cleanly = !run.timed_out && run.signal == 0 && run.exit_code == 0;
  std::string blamed = report.running.value_or("");
  for (const auto &check : expected) {
    auto done = std::find_if(outcome.results.begin(), outcome.results.end(),
                             [&](const CheckResult &r) { return r.check == check; });
    if (done != outcome.results.end()) continue;
    if (!ended_cleanly && (blamed.empty() || blamed == check)) {
      outcome.results.push_back(fail(check, crash_reason(run, options.budget)));
      blamed = check;  // the rest of the group did not run
    } else {
      outcome.results.push_back(skip(check, ended_cleanly
                                                ? "not applicable to this module"
                                                : "not run: the process ended in " + blamed));
    }
  }
  auto rank = [&](const CheckResult &r) {
    return std::find(expected.begin(), expected.end(), r.check) - expected.begin();
  };
  std::stable_sort(outcome.results.begin(), outcome.results.end(),
                   [&](const CheckResult &a, const CheckResult &b) { return rank(a) < rank(b); });
  return outcome;
}

}  // namespace amplifier::host::validate
