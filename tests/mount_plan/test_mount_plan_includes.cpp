// Plans that compose: `includes:` merged in order, the including plan on top (issue 14 §1).
#include "plan_test_support.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace amplifier;
namespace fs = std::filesystem;

namespace {

struct PlanDir {
  fs::path dir = fs::temp_directory_path() / ("amp-includes-" + std::to_string(::getpid()));
  PlanDir() { fs::create_directories(dir / "sub"); }
  ~PlanDir() { fs::remove_all(dir); }
  fs::path write(const std::string &name, const std::string &text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

std::string problems_text(const fs::path &file) {
  try {
    load_mount_plan(file, fake_env());
  } catch (const MountPlanError &e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string &text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("includes merge in order, the including plan on top") {
  PlanDir d;
  d.write("sub/base.yaml", R"(session:
  orchestrator: loop-basic
  context: {module: context-simple, config: {max_tokens: 1000, keep: {a: 1, b: 2}}}
  mode: base
providers:
  - {module: provider-mock, source: ../modules, required: true, config: {chunk_size: 4, responses: [x]}}
tools:
  - {module: tool-filesystem, config: {allowed_read_paths: ["."]}}
agents: {reviewer: {description: base}}
)");
  d.write("hooks.yaml", "hooks:\n  - {module: hooks-logging}\ntools:\n  - {module: tool-bash}\n");
  auto top = d.write("top.yaml", R"(includes: [sub/base.yaml, hooks.yaml]
session:
  context: {module: context-simple, config: {keep: {b: 3}}}
  isolation: process
providers:
  - {module: provider-mock, timeout: 5, config: {responses: [y]}}
  - {module: provider-mock, instance_id: second}
tools:
  - {module: tool-filesystem, config: {allowed_write_paths: ["."]}}
agents: {reviewer: {model: fast}}
)");
  const MountPlan plan = load_mount_plan(top, fake_env());
  CHECK(plan.orchestrator.module == "loop-basic");
  CHECK(plan.orchestrator.file == (d.dir / "sub/base.yaml").string());
  // Mappings deep-merge; scalars and lists of the later plan win.
  CHECK(plan.context.config.at("max_tokens") == 1000);
  CHECK(plan.context.config.at("keep").as_object().at("a") == 1);
  CHECK(plan.context.config.at("keep").as_object().at("b") == 3);
  CHECK(plan.session_extra.at("mode") == "base");
  CHECK(plan.isolation == Isolation::process);
  // Modules merge by mount name: the provider keeps its source (made absolute against the
  // file that set it) and `required`, and takes the later timeout and config.
  REQUIRE(plan.providers.size() == 2);
  const ModuleSpec &mock = plan.providers[0];
  CHECK(mock.source == (d.dir / "modules").string());
  CHECK(mock.required);
  CHECK(mock.timeout_seconds == 5);
  CHECK(mock.config.at("chunk_size") == 4);
  CHECK(mock.config.at("responses").as_array() == boost::json::array{"y"});
  CHECK(mock.file == top.string());
  CHECK(plan.providers[1].mount_name() == "second");
  REQUIRE(plan.tools.size() == 2);
  CHECK(plan.tools[0].config.contains("allowed_read_paths"));
  CHECK(plan.tools[0].config.contains("allowed_write_paths"));
  CHECK(plan.tools[1].module == "tool-bash");
  REQUIRE(plan.hooks.size() == 1);
  CHECK(plan.agents.at("reviewer").as_object().at("description") == "base");
  CHECK(plan.agents.at("reviewer").as_object().at("model") == "fast");
}

TEST_CASE("an include cycle is an error naming the cycle") {
  PlanDir d;
  auto a = d.write("a.yaml", "includes: [b.yaml]\n");
  d.write("b.yaml", "includes: [sub/../a.yaml]\n");
  const std::string text = problems_text(a);
  CHECK(contains(text, "include cycle: " + (d.dir / "a.yaml").string() + " -> " +
                           (d.dir / "b.yaml").string() + " -> " + (d.dir / "a.yaml").string()));
}

TEST_CASE("a problem names the file it is in; a session may come from any of the plans") {
  PlanDir d;
  d.write("broken.yaml", "tools:\n  - {module: Tool_Bash}\n");
  auto top = d.write(
      "top.yaml",
      "includes: [broken.yaml]\nsession: {orchestrator: loop-basic, context: context-simple}\n");
  const std::string text = problems_text(top);
  CHECK(contains(text,
                 (d.dir / "broken.yaml").string() + ":2:14: tools[0].module: invalid module id"));

  auto no_session = d.write("lonely.yaml", "includes: [fragment.yaml]\n");
  d.write("fragment.yaml", "session: {orchestrator: loop-basic}\n");
  const std::string missing = problems_text(no_session);
  CHECK(contains(missing, "session.context: missing in the plan and its includes"));
  CHECK_FALSE(contains(missing, "orchestrator"));

  CHECK(contains(problems_text(d.write("absent.yaml", "includes: [nowhere.yaml]\n")),
                 "cannot read mount plan"));
  CHECK(contains(problems_text(d.write("scalar.yaml", "includes: base.yaml\n")),
                 "includes: expected a list of plan files"));
}

TEST_CASE("a plan from text cannot include files") {
  auto problems = problems_of(
      "includes: [x.yaml]\nsession: {orchestrator: loop-basic, context: context-simple}\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message == "only a plan read from a file can include others");
}
