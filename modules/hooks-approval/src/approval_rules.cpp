#include "approval_rules.hpp"

#include "amplifier/module_support/command_match.hpp"

namespace hooks_approval {

namespace ms = amplifier::module_support;

namespace {

Action read_action(ms::ConfigReader &reader, std::string_view key, Action fallback) {
  const std::string name = reader.get_string(key, std::string(to_string(fallback)));
  if (name == "allow") return Action::allow;
  if (name == "deny") return Action::deny;
  if (name == "ask") return Action::ask;
  throw reader.error(key, "must be one of allow, deny, ask (got '" + name + "')");
}

Rule read_rule(ms::ConfigReader &reader) {
  Rule rule;
  const auto tool = reader.get_optional_string("tool");
  if (!tool || tool->empty()) throw reader.error("tool", "is required (a tool name or a glob such as \"*\")");
  rule.tool = *tool;
  rule.command = reader.get_optional_string("command");
  if (!reader.has("action")) throw reader.error("action", "is required (allow, deny or ask)");
  rule.action = read_action(reader, "action", Action::ask);
  return rule;
}

bool command_matches(const Rule &rule, const std::optional<std::string> &command) {
  if (!rule.command) return true;
  if (!command) return false;
  const std::vector<std::string> patterns{*rule.command};
  // Letting a call through needs the whole line covered; stopping or questioning it needs
  // any part (see approval_rules.hpp).
  return rule.action == Action::allow ? command_match::match_every_part(patterns, *command)
                                      : command_match::match_any_part(patterns, *command).has_value();
}

}  // namespace

std::string_view to_string(Action action) {
  switch (action) {
    case Action::allow: return "allow";
    case Action::deny: return "deny";
    case Action::ask: return "ask";
  }
  return "ask";
}

std::string Rule::describe(std::size_t index) const {
  std::string text = built_in ? std::string("built-in rule") : "rule " + std::to_string(index + 1);
  text += " (tool '" + tool + "'";
  if (command) text += ", command '" + *command + "'";
  return text + ")";
}

RuleSet::RuleSet(ms::ConfigReader &config) {
  if (const auto *list = config.get_array("rules")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string context = config.context() + ": rules[" + std::to_string(i) + "]";
      if (!(*list)[i].is_object()) throw ms::ConfigError(context + " must be an object {tool, command?, action}");
      ms::ConfigReader item((*list)[i].get_object(), context);
      rules_.push_back(read_rule(item));
      for (const auto &message : item.unknown_key_messages()) throw ms::ConfigError(message);
    }
  }
  // Shell commands can do anything: ask, unless a configured rule above said otherwise.
  rules_.push_back(Rule{"bash", std::nullopt, Action::ask, true});
  default_action_ = read_action(config, "default_action", Action::allow);
}

Decision RuleSet::decide(std::string_view tool, const std::optional<std::string> &command) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule &rule = rules_[i];
    if (command_match::wildcard_match(rule.tool, tool) && command_matches(rule, command))
      return Decision{rule.action, rule.describe(i)};
  }
  return Decision{default_action_, "default_action"};
}

}  // namespace hooks_approval
