// Agents: the Markdown format, where they are found, and the plan a child of one mounts.
#include "agents.hpp"

#include "temp_files.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace amplifier::host;
namespace fs = std::filesystem;

namespace {
std::string error_of(std::string_view text) {
  try {
    parse_agent_markdown(text, "a.md", "a");
  } catch (const AgentError &e) {
    return e.what();
  }
  return "";
}

const char *kParentPlan = R"(session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - {module: provider-mock, config: {chunk_size: 4}}
tools:
  - module: tool-filesystem
  - module: tool-bash
  - module: tool-delegate
hooks:
  - module: hooks-logging
)";

// Sets an environment variable for the scope.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string &value) : name(std::move(n)) {
    if (const char *v = std::getenv(name.c_str())) old = v;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() { old ? (void)setenv(name.c_str(), old->c_str(), 1) : (void)unsetenv(name.c_str()); }
};
}  // namespace

TEST_CASE("an agent file: front matter, instructions, overlay, inherit and exclude") {
  AgentDefinition agent = parse_agent_markdown(R"(---
name: reviewer
description: Reviews code
inherit:
  tools: [tool-filesystem]
  hooks: none
providers:
  - {module: provider-mock, config: {responses: [{text: "looks fine"}]}}
---

You review code.
Be strict.
)",
                                               "reviewer.md", "file-name");
  CHECK(agent.name == "reviewer");
  CHECK(agent.description == "Reviews code");
  CHECK(agent.instructions == "You review code.\nBe strict.");
  CHECK(agent.inherit_tools.mode == InheritRule::Mode::listed);
  CHECK(agent.inherit_hooks.mode == InheritRule::Mode::none);
  REQUIRE(agent.overlay.providers.size() == 1);

  amplifier::MountPlan parent = amplifier::parse_mount_plan(kParentPlan, "parent.yaml");
  amplifier::MountPlan child = child_plan(parent, &agent, {"tool-delegate"}, {});
  REQUIRE(child.tools.size() == 1);
  CHECK(child.tools[0].module == "tool-filesystem");
  CHECK(child.hooks.empty());
  REQUIRE(child.providers.size() == 1);
  // The overlay merged over the parent's provider: the parent's keys stay, the agent's win.
  CHECK(child.providers[0].config.at("chunk_size").as_int64() == 4);
  CHECK(child.providers[0].config.contains("responses"));
  CHECK(child.orchestrator.module == "loop-streaming");

  // "self": the parent's plan minus what the request leaves out.
  amplifier::MountPlan self = child_plan(parent, nullptr, {"tool-delegate"}, {"hooks-logging"});
  CHECK(self.tools.size() == 2);
  CHECK(self.hooks.empty());

  AgentDefinition excluding =
      parse_agent_markdown("---\nexclude: {tools: [tool-bash]}\n---\nx", "e.md", "excluder");
  CHECK(excluding.name == "excluder");  // from the file name
  CHECK(child_plan(parent, &excluding, {}, {}).tools.size() == 2);
}

TEST_CASE("a broken agent file says what is wrong with it") {
  CHECK(error_of("---\nname: x\n").find("no closing '---'") != std::string::npos);
  CHECK(error_of("---\nnmae: x\n---\n").find("'nmae' is not an agent key") != std::string::npos);
  CHECK(error_of("---\nname: self\n---\n").find("not usable") != std::string::npos);
  CHECK(error_of("---\nname: [a\n---\n").find("not valid YAML") != std::string::npos);
  CHECK(error_of("---\ninherit: {tools: some}\n---\n").find("all, none or a list") !=
        std::string::npos);
  CHECK(error_of("---\ntools: {module: x}\n---\n").find("plan overlay") != std::string::npos);
  // No front matter at all: the whole text is the instructions.
  CHECK(parse_agent_markdown("Just do it.\n", "p.md", "plain").instructions == "Just do it.");
}

TEST_CASE("agents are found in the project, then the user's folder, then the plan") {
  amp_test::TempDir dir("amp-agents");
  const fs::path project = dir.path() / "project";
  const fs::path config = dir.path() / "config";
  amp_test::write_file(project / ".amplifier/agents/shared.md",
                       "---\ndescription: from the project\n---\nproject");
  amp_test::write_file(config / "amplifier/agents/shared.md",
                       "---\ndescription: from the user\n---\nuser");
  amp_test::write_file(config / "amplifier/agents/mine.md", "---\ndescription: user only\n---\nu");
  amp_test::write_file(config / "amplifier/agents/broken.md", "---\nname: [\n---\n");
  amp_test::write_file(dir.path() / "plans/agents/listed.md", "---\ndescription: by path\n---\nl");
  const fs::path plan_file = dir.path() / "plans/plan.yaml";
  amp_test::write_file(plan_file, std::string(kParentPlan) + R"(agents:
  shared: {description: from the plan, instructions: plan}
  inline: {description: inline one, instructions: "Inline rules."}
  listed: agents/listed.md
)");
  ScopedEnv xdg("XDG_CONFIG_HOME", config.string());
  const amplifier::MountPlan plan = amplifier::load_mount_plan(plan_file);
  const AgentCatalog catalog = AgentCatalog::discover(plan, project);
  REQUIRE(catalog.find("shared"));
  CHECK(catalog.find("shared")->description == "from the project");
  REQUIRE(catalog.find("mine"));
  REQUIRE(catalog.find("inline"));
  CHECK(catalog.find("inline")->instructions == "Inline rules.");
  REQUIRE(catalog.find("listed"));  // relative to the plan file
  CHECK(catalog.find("listed")->instructions == "l");
  CHECK(catalog.agents().size() == 4);
  REQUIRE(catalog.problems().size() == 1);
  CHECK(catalog.problems()[0].find("broken.md") != std::string::npos);
}
