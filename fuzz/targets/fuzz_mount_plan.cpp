// The mount-plan loader (kernel parse_mount_plan) with ${VAR} expansion through an environment
// the input controls. Input: "NAME=value" lines, a NUL byte, then the plan's YAML (no NUL:
// all YAML, empty environment).
// Invariants: a plan either loads or fails with MountPlanError (nothing else escapes); loading
// is deterministic; expand_env leaves text without '$' unchanged, inserts a set variable's
// value as it is (never re-expanded), and turns "$$" into "$".
#include "fuzz_support.hpp"

#include "amplifier/model.hpp"
#include "amplifier/mount_plan.hpp"

#include <boost/json.hpp>

#include <map>

namespace {

boost::json::object summary(const amplifier::MountPlan &plan) {
  auto spec = [](const amplifier::ModuleSpec &s) {
    return boost::json::object{{"module", s.module},
                               {"source", s.source},
                               {"instance_id", s.instance_id},
                               {"config", s.config},
                               {"line", s.location.line},
                               {"column", s.location.column}};
  };
  auto specs = [&](const std::vector<amplifier::ModuleSpec> &list) {
    boost::json::array out;
    for (const auto &s : list) out.push_back(spec(s));
    return out;
  };
  boost::json::array warnings;
  for (const auto &w : plan.warnings) warnings.push_back(boost::json::string(w));
  return {{"orchestrator", spec(plan.orchestrator)},
          {"context", spec(plan.context)},
          {"providers", specs(plan.providers)},
          {"tools", specs(plan.tools)},
          {"hooks", specs(plan.hooks)},
          {"session_extra", plan.session_extra},
          {"agents", plan.agents},
          {"warnings", warnings}};
}

std::optional<boost::json::object> load(std::string_view yaml, const amplifier::EnvLookup &env,
                                        std::string &error) {
  try {
    return summary(amplifier::parse_mount_plan(yaml, "fuzz.yaml", env));
  } catch (const amplifier::MountPlanError &e) {
    FUZZ_CHECK(!e.problems().empty());
    error = e.what();
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view input = amp_fuzz::as_text(data, size);
  std::map<std::string, std::string, std::less<>> vars;
  std::string_view yaml = input;
  if (const std::size_t nul = input.find('\0'); nul != std::string_view::npos) {
    for (std::string_view line : amp_fuzz::split(input.substr(0, nul), '\n')) {
      const std::size_t eq = line.find('=');
      if (eq != std::string_view::npos) vars[std::string(line.substr(0, eq))] = line.substr(eq + 1);
    }
    yaml = input.substr(nul + 1);
  }
  const amplifier::EnvLookup env = [&](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };

  // expand_env on its own: expands, or refuses (nesting or size past its limits) with
  // ExpansionError; text without '$' is never refused.
  try {
    const std::string expanded = amplifier::expand_env(yaml, env);
    if (yaml.find('$') == std::string_view::npos) FUZZ_CHECK(expanded == yaml);
    FUZZ_CHECK(expanded.size() <= amplifier::kMaxExpandedBytes + yaml.size());
  } catch (const amplifier::ExpansionError &) {
    FUZZ_CHECK(yaml.find("${") != std::string_view::npos);
  }
  std::string doubled;
  for (char c : yaml) doubled += c == '$' ? std::string("$$") : std::string(1, c);
  FUZZ_CHECK(amplifier::expand_env(doubled, env) == yaml);
  for (const auto &[name, value] : vars) {
    bool name_ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) name_ok = name_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (name_ok && !value.empty()) FUZZ_CHECK(amplifier::expand_env("${" + name + "}", env) == value);
  }

  // The loader: loads or says why not, the same way twice.
  std::string error1, error2;
  const auto first = load(yaml, env, error1);
  const auto second = load(yaml, env, error2);
  FUZZ_CHECK(first.has_value() == second.has_value());
  if (first) {
    FUZZ_CHECK(*first == *second);
  } else {
    FUZZ_CHECK(error1 == error2);
  }
  return 0;
}
