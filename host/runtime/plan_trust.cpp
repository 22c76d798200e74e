#include "plan_trust.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace amplifier::host {
namespace json = boost::json;
namespace {

constexpr std::array<std::string_view, 53> kGrantingWords = {
    "command", "commands", "args",     "env",       "server",  "servers",  "path",   "paths",
    "dir",     "dirs",     "directory", "file",     "files",   "log",      "logs",   "template",
    "url",     "urls",     "endpoint", "host",      "dsn",     "key",      "keys",   "token",
    "secret",  "password", "auth",     "header",    "headers", "proxy",    "verify", "tls",
    "ssl",     "sandbox",  "allow",    "allowed",   "deny",    "denied",   "output", "record",
    "socket",  "exec",     "program",  "script",    "working", "store",    "cert",   "isolation",
    "depth",   "nesting",  "root",     "rules",     "default"};

void check_object(const json::object &config, const std::string &path,
                  std::vector<std::string> &refusals) {
  for (const auto &[key, value] : config) {
    const std::string at = fmt::format("{}.{}", path, std::string_view(key));
    if (grants_key(key))
      refusals.push_back(fmt::format(
          "{}: only the operator may set programs, paths, endpoints, secrets or policies", at));
    else if (const auto *inner = value.if_object())
      check_object(*inner, at, refusals);
  }
}

}  // namespace

bool grants_key(std::string_view key) {
  std::string word;
  auto grants = [&] {
    return std::find(kGrantingWords.begin(), kGrantingWords.end(), word) != kGrantingWords.end();
  };
  for (char c : key) {
    if (c == '_' || c == '-' || c == '.') {
      if (grants()) return true;
      word.clear();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return grants();
}

std::span<const ModuleSpec> section_modules(const MountPlan &plan, PlanSection section) {
  switch (section) {
    case PlanSection::orchestrator: return {&plan.orchestrator, 1};
    case PlanSection::context: return {&plan.context, 1};
    case PlanSection::providers: return plan.providers;
    case PlanSection::tools: return plan.tools;
    case PlanSection::hooks: return plan.hooks;
  }
  return {};
}

void for_each_module(
    const MountPlan &plan,
    const std::function<void(const ModuleSpec &, const std::string &, PlanSection)> &visit) {
  constexpr std::pair<PlanSection, std::string_view> kSections[] = {
      {PlanSection::orchestrator, "session.orchestrator"},
      {PlanSection::context, "session.context"},
      {PlanSection::providers, "providers"},
      {PlanSection::tools, "tools"},
      {PlanSection::hooks, "hooks"}};
  for (const auto &[section, name] : kSections) {
    const auto modules = section_modules(plan, section);
    const bool listed = section != PlanSection::orchestrator && section != PlanSection::context;
    for (std::size_t i = 0; i < modules.size(); ++i)
      if (!modules[i].module.empty())
        visit(modules[i], listed ? fmt::format("{}[{}]", name, i) : std::string(name), section);
  }
}

void config_refusals(const ModuleSpec &spec, const std::string &path,
                     std::vector<std::string> &refusals) {
  check_object(spec.config, path + ".config", refusals);
}

void option_refusals(const ModuleSpec &spec, const std::string &path,
                     std::vector<std::string> &refusals) {
  for (const auto &key : spec.set_keys)
    if (key == "isolation" || key == "memory_limit_mb" || key == "max_message_mb" ||
        key == "required")
      refusals.push_back(fmt::format("{}.{}: only the operator sets it", path, key));
}

}  // namespace amplifier::host
