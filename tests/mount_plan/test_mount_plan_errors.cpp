// Invalid mount plans: every problem named with file, line, column and key; all at once.
#include "amplifier/mount_plan.hpp"
#include "plan_test_support.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace amplifier;

namespace {

constexpr std::string_view kSession = "session: {orchestrator: loop-basic, context: context-simple}\n";

void check_location(const PlanProblem &problem, int line, int column) {
  INFO(problem.to_string());
  CHECK(problem.file == "plan.yaml");
  CHECK(problem.location.line == line);
  CHECK(problem.location.column == column);
}

}  // namespace

TEST_CASE("YAML syntax errors carry yaml-cpp's position") {
  const auto problems = problems_of("session:\n  orchestrator: [loop-basic\n  context: x\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].key.empty());
  CHECK(problems[0].location.line >= 2);
  CHECK(problems[0].location.column >= 1);
  CHECK(contains(problems[0].message, "YAML syntax error"));
  CHECK(contains(problems[0].to_string(), "plan.yaml:"));

  const auto bad_value = problems_of("session: a: b\n");
  REQUIRE(bad_value.size() == 1);
  check_location(bad_value[0], 1, 11);
}

TEST_CASE("a missing or empty session") {
  check_location(problem_at(problems_of("providers: []\n"), "session"), 1, 1);
  CHECK(contains(problem_at(problems_of(""), "session").message, "empty"));
  CHECK(contains(problem_at(problems_of("# only a comment\n"), "session").message, "empty"));
  const auto null_session = problem_at(problems_of("session:\n"), "session");
  check_location(null_session, 1, 1);
  CHECK(contains(null_session.message, "expected a map"));
  CHECK(contains(problem_at(problems_of("- a\n- b\n"), "").message, "map of sections"));
}

TEST_CASE("session needs orchestrator and context") {
  const auto problems = problems_of("session:\n  max_turns: 3\n");
  REQUIRE(problems.size() == 2);
  check_location(problem_at(problems, "session.orchestrator"), 2, 3);
  check_location(problem_at(problems, "session.context"), 2, 3);
  CHECK(problem_at(problems, "session.context").message == "missing required key");
}

TEST_CASE("session slot types") {
  const auto problems = problems_of(R"(session:
  orchestrator: [loop-basic]
  context: {source: ./x}
)");
  const auto orchestrator = problem_at(problems, "session.orchestrator");
  check_location(orchestrator, 2, 17);
  CHECK(contains(orchestrator.message, "expected a module id or a map with 'module', got a list"));
  check_location(problem_at(problems, "session.context.module"), 3, 12);
}

TEST_CASE("section types") {
  const auto problems = problems_of(std::string(kSession) + R"(providers: {module: provider-mock}
tools: tool-bash
hooks:
  - just-a-string
agents: [reviewer]
)");
  const auto providers = problem_at(problems, "providers");
  check_location(providers, 2, 12);
  CHECK(providers.message == "expected a list, got a map");
  check_location(problem_at(problems, "tools"), 3, 8);
  const auto hook = problem_at(problems, "hooks[0]");
  check_location(hook, 5, 5);
  CHECK(contains(hook.message, "expected a map with 'module', got a scalar"));
  const auto agents = problem_at(problems, "agents");
  check_location(agents, 6, 9);
  CHECK(agents.message == "expected a map, got a list");
}

TEST_CASE("entry field types") {
  const auto problems = problems_of(std::string(kSession) + R"(providers:
  - module: provider-mock
    config: [1, 2]
  - module: [provider-x]
    source: {url: x}
  - module: 42
    instance_id: ""
tools:
  - module: tool-bash
    config: just text
)");
  const auto config = problem_at(problems, "providers[0].config");
  check_location(config, 4, 13);
  CHECK(config.message == "expected a map, got a list");
  const auto module_list = problem_at(problems, "providers[1].module");
  check_location(module_list, 5, 13);
  CHECK(module_list.message == "expected a string, got a list");
  check_location(problem_at(problems, "providers[1].source"), 6, 13);
  const auto module_number = problem_at(problems, "providers[2].module");
  check_location(module_number, 7, 13);
  CHECK(contains(module_number.message, "expected a string, got an integer '42'"));
  check_location(problem_at(problems, "providers[2].instance_id"), 8, 18);
  check_location(problem_at(problems, "tools[0].config"), 11, 13);
}

TEST_CASE("empty and missing module ids") {
  const auto problems = problems_of(std::string(kSession) + R"(tools:
  - module: ""
  - module:
  - config: {a: 1}
)");
  const auto quoted = problem_at(problems, "tools[0].module");
  check_location(quoted, 3, 13);
  CHECK(quoted.message == "module id is empty");
  const auto null_module = problem_at(problems, "tools[1].module");
  check_location(null_module, 4, 5);  // no value to point at: the key
  CHECK(null_module.message == "module id is empty");
  const auto missing = problem_at(problems, "tools[2].module");
  check_location(missing, 5, 5);
  CHECK(missing.message == "missing required key");
}

TEST_CASE("module ids that are not safe file names are rejected") {
  for (std::string bad : {"../evil", "a/b", "..", ".hidden", "Provider-Mock", "provider mock", "-dash",
                          "tool\\x", "provider-\xC3\xA9"}) {
    CAPTURE(bad);
    const auto problem = problem_at(problems_of(std::string(kSession) + "tools:\n  - module: '" + bad + "'\n"),
                                    "tools[0].module");
    check_location(problem, 3, 13);
    CHECK(contains(problem.message, "invalid module id"));
    CHECK(contains(problem.message, "[a-z0-9][a-z0-9._-]*"));
  }
}

TEST_CASE("module ids are checked after expansion") {
  const auto problems = problems_of("session: {orchestrator: \"${ORCH}\", context: context-simple}\n",
                                    fake_env({{"ORCH", "../../tmp/evil"}}));
  CHECK(contains(problem_at(problems, "session.orchestrator").message, "'../../tmp/evil'"));
}

TEST_CASE("duplicate mount names among providers and among tools") {
  const auto problems = problems_of(std::string(kSession) + R"(providers:
  - module: provider-anthropic
  - module: provider-anthropic
  - module: provider-openai
    instance_id: fast
  - module: provider-anthropic
    instance_id: fast
tools:
  - module: tool-bash
  - {module: tool-bash}
hooks:
  - module: hooks-logging
  - module: hooks-logging
)");
  const auto second = problem_at(problems, "providers[1]");
  check_location(second, 4, 5);
  CHECK(contains(second.message, "duplicate mount name 'provider-anthropic' (also providers[0] at line 3)"));
  CHECK(contains(second.message, "instance_id"));
  CHECK(contains(problem_at(problems, "providers[3]").message, "duplicate mount name 'fast'"));
  check_location(problem_at(problems, "tools[1]"), 11, 5);
  CHECK(problems.size() == 3);  // hooks may repeat a module
}

TEST_CASE("duplicate and non-string YAML keys") {
  const auto problems = problems_of(std::string(kSession) + R"(tools:
  - module: tool-a
    config:
      timeout: 1
      timeout: 2
      [a, b]: 3
)");
  const auto duplicate = problem_at(problems, "tools[0].config.timeout");
  check_location(duplicate, 6, 7);
  CHECK(duplicate.message == "duplicate key (first at line 5)");
  CHECK(contains(problem_at(problems, "tools[0].config").message, "keys must be strings"));
}

TEST_CASE("several problems are reported together") {
  try {
    parse_mount_plan(R"(session:
  orchestrator: Loop
providers: nope
tools:
  - module: tool/../x
    config: 5
)", "many.yaml", fake_env());
    FAIL("expected a MountPlanError");
  } catch (const MountPlanError &e) {
    const auto &problems = e.problems();
    CHECK(problems.size() == 5);
    problem_at(problems, "session.orchestrator");  // invalid id
    problem_at(problems, "session.context");       // missing
    problem_at(problems, "providers");
    problem_at(problems, "tools[0].module");
    problem_at(problems, "tools[0].config");
    const std::string what = e.what();
    CHECK(contains(what, "invalid mount plan (5 problems):"));
    CHECK(contains(what, "many.yaml:2:17: session.orchestrator: invalid module id 'Loop'"));
    CHECK(contains(what, "many.yaml:3:12: providers: expected a list, got a scalar"));
    CHECK(contains(what, "many.yaml:6:13: tools[0].config: expected a map, got a scalar"));
  }
}

TEST_CASE("a plan is one YAML document") {
  const auto problems = problems_of(std::string(kSession) + "---\n" + std::string(kSession));
  REQUIRE(problems.size() == 1);
  CHECK(contains(problems[0].message, "single YAML document"));
}

TEST_CASE("a stray top-level token is a syntax error, not a hang") {
  // Found by fuzzing: yaml-cpp 0.7's LoadAll loops forever on these.
  for (const std::string yaml : {",", ", l: [1]}\ntools: []\n", ",\n,\n", "session: {}\n---\n,"}) {
    CAPTURE(yaml);
    const auto problems = problems_of(yaml);
    REQUIRE(problems.size() == 1);
    CHECK((contains(problems[0].message, "YAML syntax error") ||
           contains(problems[0].message, "single YAML document")));
  }
  const auto stray = problems_of(",");
  CHECK(stray[0].message == "YAML syntax error: unexpected token at the top level");
}

TEST_CASE("a single problem reads as one line") {
  try {
    parse_mount_plan("providers: []\n", "one.yaml", fake_env());
    FAIL("expected a MountPlanError");
  } catch (const MountPlanError &e) {
    CHECK(std::string(e.what()) == "invalid mount plan: one.yaml:1:1: session: missing required section");
  }
}

TEST_CASE("problem text without a location or key") {
  CHECK(PlanProblem{"f.yaml", {}, "", "cannot read"}.to_string() == "f.yaml: cannot read");
  CHECK(PlanProblem{"f.yaml", {3, 4}, "tools", "bad"}.to_string() == "f.yaml:3:4: tools: bad");
}

TEST_CASE("an unreadable file names its path") {
  const std::filesystem::path missing = "/nonexistent/dir/plan.yaml";
  try {
    load_mount_plan(missing, fake_env());
    FAIL("expected a MountPlanError");
  } catch (const MountPlanError &e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].file == missing.string());
    CHECK(contains(e.what(), "/nonexistent/dir/plan.yaml"));
    CHECK(contains(e.what(), "cannot read mount plan"));
  }
  try {
    load_mount_plan(std::filesystem::temp_directory_path(), fake_env());
    FAIL("expected a MountPlanError");
  } catch (const MountPlanError &e) {
    CHECK(contains(e.what(), "directory"));
  }
}

namespace {
// A plan whose tool config has `l0: &l0 LEAF` and then `levels` levels, each a list repeating
// the previous one ten times through aliases.
std::string alias_levels(const std::string &leaf, int levels) {
  std::string yaml =
      std::string(kSession) + "tools:\n  - module: tool-x\n    config:\n      l0: &l0 " + leaf + "\n";
  for (int level = 1; level <= levels; ++level) {
    const std::string previous = "*l" + std::to_string(level - 1);
    yaml += "      l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) yaml += (i ? ", " : "") + previous;
    yaml += "]\n";
  }
  return yaml;
}
}  // namespace

TEST_CASE("an alias bomb is stopped, not expanded") {
  // 10^7 nodes from a few hundred bytes.
  const auto problems = problems_of(alias_levels("[x, x, x, x, x, x, x, x, x, x]", 6));
  REQUIRE(problems.size() == 1);
  CHECK(contains(problems[0].message, "too large once aliases are expanded"));
}

TEST_CASE("aliases of a large value are stopped by the bytes they add up to, not only the nodes") {
  // A 100 KiB string repeated 10, 100, 1000 times through aliases: 1,111 nodes, 100 MiB of
  // values (before the limit, a 1 MiB plan like this took 1.1 GB).
  const auto problems = problems_of(alias_levels("\"" + std::string(100 * 1024, 'a') + "\"", 3));
  REQUIRE(problems.size() == 1);
  CHECK(contains(problems[0].message,
                 "too large once aliases are expanded (its keys and values exceed 64 MiB)"));
  // The same through a key (YAML keeps a plain key under 1024 bytes: 10^5 copies of 1000).
  const auto by_key = problems_of(alias_levels("{\"" + std::string(1000, 'k') + "\": 1}", 5));
  REQUIRE(by_key.size() == 1);
  CHECK(contains(by_key[0].message, "too large once aliases are expanded"));
}

TEST_CASE("${...} defaults nested past the depth limit are a plan error naming the limit") {
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "${A:-";  // 500 KB: it overflowed the stack
  nested += "x" + std::string(100000, '}');
  const auto problems =
      problems_of(std::string(kSession) + "tools:\n  - module: tool-x\n    config: {v: \"" + nested + "\"}\n");
  REQUIRE(problems.size() == 1);
  CHECK(contains(problems[0].message, "defaults nest deeper than 16 levels"));
  CHECK(problems[0].key == "tools[0].config.v");
}
