// A ChildSessionPolicy for tests and benchmarks: every child runs "self" (the parent's plan
// without tool-delegate) on a provider-mock answering with a given script. Header-only; users
// link the kernel.
#pragma once
#include "amplifier/child_sessions.hpp"
#include "amplifier/session.hpp"

#include <functional>
#include <string>

namespace amp_test {

class ScriptedChildren : public amplifier::ChildSessionPolicy {
 public:
  // `script`: the child's provider-mock responses, a YAML flow list.
  explicit ScriptedChildren(const std::string &script)
      : overlay_(amplifier::parse_plan_fragment(
            "providers:\n  - module: provider-mock\n    config: {responses: " + script + "}\n",
            "child overlay")) {}
  amplifier::ChildSetup setup(const amplifier::MountPlan &parent,
                              const amplifier::SpawnRequest &request) override {
    amplifier::ChildSetup setup;
    setup.agent = request.agent;
    setup.plan = parent;
    std::erase_if(setup.plan.tools, [](const auto &t) { return t.module == "tool-delegate"; });
    amplifier::merge_mount_plan(setup.plan, overlay_);
    return setup;
  }
  void prepare(amplifier::Session &child) override {
    if (on_child) on_child(child);
  }
  // Runs for every child before it starts (a test registers hooks on it).
  std::function<void(amplifier::Session &)> on_child;

 private:
  amplifier::MountPlan overlay_;
};

}  // namespace amp_test
