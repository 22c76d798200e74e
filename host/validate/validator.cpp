#include "validator.hpp"

#include "check_process.hpp"

#include <boost/json/value.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace amplifier::host::validate {
namespace fs = std::filesystem;
namespace {

// A scratch folder for the check processes (their home and working directory), removed
// when the run ends.
class ScratchDir {
 public:
  ScratchDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/amplifier-validate-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch folder");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path &path() const { return path_; }

 private:
  fs::path path_;
};

std::string text_fact(const boost::json::object &facts, std::string_view key) {
  const auto *v = facts.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool flag_fact(const boost::json::object &facts, std::string_view key) {
  const auto *v = facts.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// The description check of a kind (run with create-destroy), if it has one.
std::vector<std::string> instance_checks(const std::string &kind) {
  if (kind == "provider") return {"create-destroy", "provider-info"};
  if (kind == "tool") return {"create-destroy", "tool-specs"};
  return {"create-destroy"};
}

std::vector<std::string> behavioral_checks(const std::string &kind) {
  const std::vector<std::string> calls = {"call-invalid-json", "call-cancel-graceful",
                                          "call-cancel-immediate", "call-concurrent"};
  std::vector<std::string> checks;
  if (kind == "provider") checks = {"provider-offline"};
  if (kind == "tool") checks = {"tool-bad-input"};
  if (kind == "orchestrator") checks = {"orchestrator-turn"};
  if (kind == "hook") return {"hook-events"};
  if (kind == "context") return {"context-round-trip", "context-sessions-query"};
  checks.insert(checks.end(), calls.begin(), calls.end());
  return checks;
}

void append(std::vector<CheckResult> &into, const GroupOutcome &outcome) {
  into.insert(into.end(), outcome.results.begin(), outcome.results.end());
}

void skip_all(std::vector<CheckResult> &into, const std::vector<std::string> &checks,
              const std::string &why) {
  for (const auto &check : checks) into.push_back(skip(check, why));
}

}  // namespace

bool is_file_target(const std::string &target) {
  return target.find('/') != std::string::npos ||
         (target.size() > 3 && target.compare(target.size() - 3, 3, ".so") == 0);
}

std::vector<CheckResult> validate_module(const ValidateOptions &options) {
  ScratchDir scratch;
  CheckProcessOptions process{scratch.path(), options.config, options.budget};
  std::vector<CheckResult> results;
  std::string file = options.target;
  if (!is_file_target(options.target)) {
    GroupOutcome resolved = run_group("resolve", options.target, {"resolve"}, process);
    append(results, resolved);
    file = text_fact(resolved.facts, "file");
    if (file.empty()) return results;  // nothing found to check
  } else {
    file = fs::absolute(file).string();
  }
  append(results,
         run_group("elf", file, {"entry-symbol", "only-export", "unresolved-symbols"}, process));
  GroupOutcome descriptor = run_group("descriptor", file,
                                      {"loads", "abi-version", "descriptor-fields", "file-name",
                                       "table-size", "required-functions"},
                                      process);
  append(results, descriptor);
  if (!flag_fact(descriptor.facts, "loadable")) {
    const std::string why =
        "the host does not load it: " + text_fact(descriptor.facts, "load_error");
    skip_all(results, {"create-destroy"}, one_line(why));
    return results;
  }
  const std::string kind = text_fact(descriptor.facts, "kind");
  GroupOutcome instance = run_group("instance", file, instance_checks(kind), process);
  append(results, instance);
  if (!options.behavioral) return results;
  if (!flag_fact(instance.facts, "creatable")) {
    skip_all(results, behavioral_checks(kind), "no instance could be created (see create-destroy)");
    return results;
  }
  for (const auto &check : behavioral_checks(kind))
    append(results, run_group(check, file, {check}, process));
  return results;
}

}  // namespace amplifier::host::validate
