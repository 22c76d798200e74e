// The rules that decide, per tool call, whether it runs (allow), is refused (deny) or needs the
// user's approval (ask).
//
// Config: `rules: [{tool, command?, action}]` is checked first, in order; then the built-in
// rule {tool: bash, action: ask}; then `default_action` (allow). The first rule that matches
// decides.
//   tool     a glob on the tool name ("*", "write_*")
//   command  a glob on the call's `command` input (bash), matched like tool-bash's lists
//            (see command_match.hpp): an allow rule needs every simple command of the line to
//            match; a deny or ask rule matches when the line or any of its simple commands
//            does, so "rm *" catches "make && rm -rf build". A rule with `command` never
//            matches a call without a string `command` input.
//   action   allow | deny | ask
#pragma once
#include "amplifier/module_support/config_reader.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hooks_approval {

enum class Action { allow, deny, ask };

std::string_view to_string(Action action);

struct Rule {
  std::string tool;                    // glob
  std::optional<std::string> command;  // glob
  Action action = Action::ask;
  bool built_in = false;

  // "rule 2 (tool 'bash', command 'rm *')", or "built-in rule (tool 'bash')".
  std::string describe(std::size_t index) const;
};

struct Decision {
  Action action = Action::allow;
  std::string because;  // which rule decided, or "default_action"
};

class RuleSet {
 public:
  // Reads `rules` and `default_action` from the module config. Throws ConfigError naming the
  // bad rule ("hooks-approval config: rules[1]: 'action' must be one of allow, deny, ask").
  explicit RuleSet(amplifier::module_support::ConfigReader &config);

  // The decision for a call of `tool` whose `command` input is `command` (absent when the
  // input has none).
  Decision decide(std::string_view tool, const std::optional<std::string> &command) const;

  const std::vector<Rule> &rules() const noexcept { return rules_; }

 private:
  std::vector<Rule> rules_;  // the configured ones, then the built-in ones
  Action default_action_ = Action::allow;
};

}  // namespace hooks_approval
