// Valid mount plans: both module forms, instance ids, passthrough, expansion and typing.
#include "amplifier/mount_plan.hpp"
#include "plan_test_support.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace amplifier;
namespace json = boost::json;

namespace {

constexpr std::string_view kFullPlan = R"(session:
  orchestrator: loop-streaming
  context: {module: context-simple, config: {max_tokens: 200000, compact_threshold: 0.92}}
  max_turns: 12
providers:
  - module: provider-anthropic
    source: git+https://github.com/microsoft/amplifier-module-provider-anthropic@main
    config: {default_model: claude-sonnet-4-5, api_key: "${ANTHROPIC_API_KEY}"}
  - module: provider-anthropic
    instance_id: anthropic-fast
    config:
      default_model: claude-haiku-4-5
tools:
  - {module: tool-filesystem, config: {allowed_write_paths: ["."]}}
  - module: tool-bash
hooks:
  - {module: hooks-logging, config: {session_log_template: "~/.amplifier/sessions/{session_id}/events.jsonl"}}
agents:
  reviewer:
    description: Reviews code with ${REVIEW_STYLE}
    providers: [{module: provider-mock}]
)";

json::object config_of(std::string_view yaml_values, EnvLookup env = fake_env()) {
  const std::string plan = "session: {orchestrator: loop-basic, context: context-simple}\n"
                           "tools:\n  - module: tool-x\n    config:\n" +
                           std::string(yaml_values);
  return parse_mount_plan(plan, "typing.yaml", env).tools.at(0).config;
}

}  // namespace

TEST_CASE("a full plan in Amplifier's shape") {
  const MountPlan plan = parse_mount_plan(kFullPlan, "full.yaml", fake_env({{"ANTHROPIC_API_KEY", "sk-test"}}));
  CHECK(plan.file == "full.yaml");
  CHECK(plan.warnings.empty());

  CHECK(plan.orchestrator.module == "loop-streaming");
  CHECK(plan.orchestrator.config.empty());
  CHECK(plan.orchestrator.location.line == 2);
  CHECK(plan.orchestrator.location.column == 17);

  CHECK(plan.context.module == "context-simple");
  CHECK(plan.context.config.at("max_tokens") == 200000);
  CHECK(plan.context.config.at("compact_threshold") == 0.92);

  CHECK(plan.session_extra.at("max_turns") == 12);

  REQUIRE(plan.providers.size() == 2);
  CHECK(plan.providers[0].module == "provider-anthropic");
  CHECK(plan.providers[0].source == "git+https://github.com/microsoft/amplifier-module-provider-anthropic@main");
  CHECK(plan.providers[0].config.at("api_key") == "sk-test");
  CHECK(plan.providers[0].mount_name() == "provider-anthropic");
  CHECK(plan.providers[0].location.line == 6);
  CHECK(plan.providers[0].location.column == 5);
  CHECK(plan.providers[1].instance_id == "anthropic-fast");
  CHECK(plan.providers[1].mount_name() == "anthropic-fast");
  CHECK(plan.providers[1].config.at("default_model") == "claude-haiku-4-5");

  REQUIRE(plan.tools.size() == 2);
  CHECK(plan.tools[0].config.at("allowed_write_paths") == json::parse(R"(["."])"));
  CHECK(plan.tools[1].module == "tool-bash");
  CHECK(plan.tools[1].config.empty());

  REQUIRE(plan.hooks.size() == 1);
  CHECK(plan.hooks[0].config.at("session_log_template") == "~/.amplifier/sessions/{session_id}/events.jsonl");
}

TEST_CASE("agents are passed through untouched: not validated, not expanded") {
  const MountPlan plan = parse_mount_plan(kFullPlan, "full.yaml", fake_env({{"REVIEW_STYLE", "care"}}));
  const json::object &reviewer = plan.agents.at("reviewer").as_object();
  CHECK(reviewer.at("description") == "Reviews code with ${REVIEW_STYLE}");
  CHECK(reviewer.at("providers") == json::parse(R"([{"module": "provider-mock"}])"));
}

TEST_CASE("the minimal plan: only session") {
  const MountPlan plan = parse_mount_plan("session:\n  orchestrator: loop-basic\n  context: context-simple\n",
                                          "min.yaml", fake_env());
  CHECK(plan.orchestrator.module == "loop-basic");
  CHECK(plan.context.module == "context-simple");
  CHECK(plan.providers.empty());
  CHECK(plan.tools.empty());
  CHECK(plan.hooks.empty());
  CHECK(plan.agents.empty());
  CHECK(plan.warnings.empty());
}

TEST_CASE("session slots in map form with source and config") {
  const MountPlan plan = parse_mount_plan(R"(session:
  orchestrator:
    module: loop-basic
    source: ./modules/loop-basic
    config: {max_iterations: 5}
  context: {module: context-persistent}
providers: []
tools:
hooks: ~
)", "map.yaml", fake_env());
  CHECK(plan.orchestrator.module == "loop-basic");
  CHECK(plan.orchestrator.source == "./modules/loop-basic");
  CHECK(plan.orchestrator.config.at("max_iterations") == 5);
  CHECK(plan.orchestrator.location.line == 3);
  CHECK(plan.context.module == "context-persistent");
  CHECK(plan.providers.empty());
  CHECK(plan.tools.empty());
  CHECK(plan.hooks.empty());
}

TEST_CASE("module ids may use digits, dots, underscores and dashes") {
  const MountPlan plan = parse_mount_plan(
      "session: {orchestrator: 0loop.v2_beta-1, context: context-simple}\n", "ids.yaml", fake_env());
  CHECK(plan.orchestrator.module == "0loop.v2_beta-1");
}

TEST_CASE("environment variables expand in every string, config included") {
  const MountPlan plan = parse_mount_plan(R"(session:
  orchestrator: ${ORCHESTRATOR}
  context: {module: "context-${CONTEXT_KIND:-simple}"}
providers:
  - module: provider-openai
    instance_id: ${INSTANCE:-openai-main}
    config:
      api_key: ${OPENAI_API_KEY}
      base_url: "${OPENAI_BASE_URL:-https://api.openai.com/v1}"
      headers: {x-team: "${TEAM}", price: "$$5"}
      models:
        - "${MODEL:-gpt-5}"
        - plain-${MODEL:-gpt-5}
)", "env.yaml", fake_env({{"ORCHESTRATOR", "loop-streaming"}, {"OPENAI_API_KEY", "sk-live"}, {"TEAM", "core"},
                          {"MODEL", ""}}));
  CHECK(plan.orchestrator.module == "loop-streaming");
  CHECK(plan.context.module == "context-simple");
  const ModuleSpec &openai = plan.providers.at(0);
  CHECK(openai.instance_id == "openai-main");
  CHECK(openai.config.at("api_key") == "sk-live");
  CHECK(openai.config.at("base_url") == "https://api.openai.com/v1");
  CHECK(openai.config.at("headers") == json::parse(R"({"x-team": "core", "price": "$5"})"));
  // MODEL is set but empty: ":-" uses the default, as in the shell.
  CHECK(openai.config.at("models") == json::parse(R"(["gpt-5", "plain-gpt-5"])"));
  CHECK(plan.warnings.empty());
}

TEST_CASE("an unset variable without a default expands to \"\" with a warning") {
  const MountPlan plan = parse_mount_plan(R"(session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-anthropic
    config:
      api_key: ${ANTHROPIC_API_KEY}
      quoted: "${ANTHROPIC_API_KEY}"
)", "unset.yaml", fake_env());
  const json::object &config = plan.providers.at(0).config;
  CHECK(config.at("api_key") == "");
  CHECK(config.at("quoted") == "");
  REQUIRE(plan.warnings.size() == 2);
  CHECK(plan.warnings[0] == "unset.yaml:5:16: providers[0].config.api_key: environment variable "
                            "ANTHROPIC_API_KEY is not set; using \"\"");
  CHECK(contains(plan.warnings[1], "unset.yaml:6:15: providers[0].config.quoted:"));
}

TEST_CASE("YAML 1.2 core schema typing of plain scalars") {
  const json::object config = config_of(R"(      t: true
      t2: True
      f: FALSE
      yes_is_a_string: yes
      n1: null
      n2: ~
      n3:
      i: 42
      neg: -17
      plus: +3
      octal: 0o17
      hex: 0x1F
      big: 18446744073709551615
      min: -9223372036854775808
      huge: 1e400
      huge_int: 123456789012345678901234567890
      huge_hex: 0x1FFFFFFFFFFFFFFFFF
      f1: 1.5
      f2: .5
      f3: 1e3
      f4: -2.5E-3
      inf: .inf
      ninf: -.Inf
      nan: .NaN
      version: 1.2.3
      text: hello world
      dotted: .hidden
      date: 2024-01-01
)");
  CHECK(config.at("t") == true);
  CHECK(config.at("t2") == true);
  CHECK(config.at("f") == false);
  CHECK(config.at("yes_is_a_string") == "yes");
  CHECK(config.at("n1").is_null());
  CHECK(config.at("n2").is_null());
  CHECK(config.at("n3").is_null());
  CHECK(config.at("i").as_int64() == 42);
  CHECK(config.at("neg").as_int64() == -17);
  CHECK(config.at("plus").as_int64() == 3);
  CHECK(config.at("octal").as_int64() == 15);
  CHECK(config.at("hex").as_int64() == 31);
  CHECK(config.at("big").as_uint64() == 18446744073709551615ull);
  CHECK(config.at("min").as_int64() == std::numeric_limits<std::int64_t>::min());
  CHECK(std::isinf(config.at("huge").as_double()));
  CHECK(config.at("huge_int").as_double() == doctest::Approx(1.2345678901234568e29));
  CHECK(config.at("huge_hex") == "0x1FFFFFFFFFFFFFFFFF");
  CHECK(config.at("f1").as_double() == 1.5);
  CHECK(config.at("f2").as_double() == 0.5);
  CHECK(config.at("f3").as_double() == 1000.0);
  CHECK(config.at("f4").as_double() == -0.0025);
  CHECK(config.at("inf").as_double() == std::numeric_limits<double>::infinity());
  CHECK(config.at("ninf").as_double() == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(config.at("nan").as_double()));
  CHECK(config.at("version") == "1.2.3");
  CHECK(config.at("text") == "hello world");
  CHECK(config.at("dotted") == ".hidden");
  CHECK(config.at("date") == "2024-01-01");
}

TEST_CASE("quoted, block and !!str scalars stay strings") {
  const json::object config = config_of(R"(      q1: "true"
      q2: '42'
      q3: "null"
      q4: ""
      tagged: !!str 7
      block: |
        line one
        line two
      folded: >
        folded
        text
)");
  CHECK(config.at("q1") == "true");
  CHECK(config.at("q2") == "42");
  CHECK(config.at("q3") == "null");
  CHECK(config.at("q4") == "");
  CHECK(config.at("tagged") == "7");
  CHECK(config.at("block") == "line one\nline two\n");
  CHECK(config.at("folded") == "folded text\n");
}

TEST_CASE("plain scalars are typed after expansion; quoted ones stay strings") {
  const json::object config = config_of(R"(      port: ${PORT:-8080}
      port_quoted: "${PORT:-8080}"
      debug: ${DEBUG:-false}
      ratio: ${RATIO}
      nothing: ${UNSET_VAR}
      name: ${NAME}
)", fake_env({{"RATIO", "0.25"}, {"NAME", "null"}}));
  CHECK(config.at("port").as_int64() == 8080);
  CHECK(config.at("port_quoted") == "8080");
  CHECK(config.at("debug") == false);
  CHECK(config.at("ratio").as_double() == 0.25);
  CHECK(config.at("nothing") == "");  // an empty expansion is "", not null
  CHECK(config.at("name").is_null());  // the value typed as if written there
}

TEST_CASE("nested maps and lists convert recursively") {
  // Inside [...] or {...} a ${...} must be quoted: braces are YAML flow indicators.
  const json::object config = config_of(R"(      servers:
        - name: alpha
          ports: [80, 443]
          tls: {enabled: true, ciphers: [a, "b"]}
        - name: beta
          ports: []
          env: {}
      matrix: [[1, 2], [3, [4, {deep: "${DEPTH:-5}"}]]]
      block_in_list:
        - - ${DEPTH:-5}
          - deeper: {x: 1}
)");
  CHECK(json::value(config) == json::parse(R"({
    "servers": [
      {"name": "alpha", "ports": [80, 443], "tls": {"enabled": true, "ciphers": ["a", "b"]}},
      {"name": "beta", "ports": [], "env": {}}
    ],
    "matrix": [[1, 2], [3, [4, {"deep": "5"}]]],
    "block_in_list": [[5, {"deeper": {"x": 1}}]]
  })"));
}

TEST_CASE("anchors and aliases are resolved") {
  const MountPlan plan = parse_mount_plan(R"(session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-a
    config: &shared {timeout: 30, retries: 2}
  - module: provider-b
    config: *shared
)", "alias.yaml", fake_env());
  CHECK(plan.providers.at(1).config == plan.providers.at(0).config);
  CHECK(plan.providers.at(1).config.at("timeout") == 30);
}

TEST_CASE("unknown sections and keys are warnings, with suggestions") {
  const MountPlan plan = parse_mount_plan(R"(session: {orchestrator: loop-basic, context: context-simple}
provider:
  - module: provider-mock
tools:
  - module: tool-bash
    confg: {timeout: 5}
    instance_id: bash-2
telemetry: {enabled: true}
)", "warn.yaml", fake_env());
  REQUIRE(plan.warnings.size() == 4);
  CHECK(plan.warnings[0] == "warn.yaml:2:1: provider: unknown key 'provider' (ignored); did you mean 'providers'?");
  CHECK(plan.warnings[1] == "warn.yaml:6:5: tools[0].confg: unknown key 'confg' (ignored); did you mean 'config'?");
  // instance_id is for providers only.
  CHECK(contains(plan.warnings[2], "warn.yaml:7:5: tools[0].instance_id: unknown key 'instance_id'"));
  CHECK(plan.warnings[3] == "warn.yaml:8:1: telemetry: unknown key 'telemetry' (ignored)");
  CHECK(plan.tools.at(0).config.empty());
  CHECK(plan.tools.at(0).instance_id.empty());
}

TEST_CASE("required: a boolean on any module entry, false unless said") {
  const MountPlan plan = parse_mount_plan(R"(session: {orchestrator: loop-basic, context: context-simple}
providers:
  - {module: provider-mock, required: true}
hooks:
  - module: hooks-approval
    required: ${NEEDED:-true}
  - {module: hooks-logging}
)", "required.yaml", fake_env());
  CHECK(plan.providers.at(0).required);
  CHECK(plan.hooks.at(0).required);
  CHECK_FALSE(plan.hooks.at(1).required);
  try {
    parse_mount_plan("session: {orchestrator: loop-basic, context: context-simple}\n"
                     "hooks: [{module: hooks-approval, required: \"yes\"}]\n",
                     "bad.yaml", fake_env());
    FAIL("accepted required: \"yes\"");
  } catch (const MountPlanError &e) {
    CHECK(contains(e.what(), "hooks[0].required: expected true or false"));
  }
}

TEST_CASE("isolation, timeout, memory_limit_mb, restarts_per_minute, max_message_mb on modules") {
  const MountPlan plan = parse_mount_plan(R"(session:
  orchestrator: loop-basic
  context: {module: context-simple, isolation: in_process}
  isolation: process
providers:
  - {module: provider-mock, timeout: 2.5, memory_limit_mb: 256, restarts_per_minute: 0,
     max_message_mb: 8}
tools:
  - {module: tool-bash, isolation: in_process}
)", "isolation.yaml", fake_env());
  CHECK(plan.isolation == Isolation::process);
  CHECK(plan.orchestrator.isolation == Isolation::inherit);
  CHECK(plan.context.isolation == Isolation::in_process);
  CHECK(plan.providers.at(0).timeout_seconds == 2.5);
  CHECK(plan.providers.at(0).memory_limit_mb == 256);
  CHECK(plan.providers.at(0).restarts_per_minute == 0);
  CHECK(plan.tools.at(0).isolation == Isolation::in_process);
  CHECK(plan.tools.at(0).restarts_per_minute == 3);
  CHECK(plan.providers.at(0).max_message_mb == 8);
  CHECK(plan.tools.at(0).max_message_mb == 64);
  CHECK(plan.session_extra.empty());  // isolation is read, not passed through

  auto problems = problems_of(R"(session: {orchestrator: loop-basic, context: context-simple, isolation: jail}
tools:
  - {module: tool-bash, isolation: sandbox, timeout: -1, memory_limit_mb: 1, restarts_per_minute: x,
     max_message_mb: 2048}
)");
  std::string all;
  for (const auto &p : problems) all += p.to_string() + "\n";
  CHECK(contains(all, "session.isolation: unknown isolation 'jail': expected process or in_process"));
  CHECK(contains(all, "tools[0].isolation: unknown isolation 'sandbox'"));
  CHECK(contains(all, "tools[0].timeout: -1 is out of range"));
  CHECK(contains(all, "tools[0].memory_limit_mb: 1 is out of range"));
  CHECK(contains(all, "tools[0].restarts_per_minute: expected a number"));
  CHECK(contains(all, "tools[0].max_message_mb: 2048 is out of range"));
}

TEST_CASE("load_mount_plan reads a file and labels messages with its path") {
  const auto dir = std::filesystem::temp_directory_path() / ("amp-plan-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "plan.yaml";
  {
    std::ofstream out(file);
    out << "session: {orchestrator: loop-basic, context: context-simple}\nextras: 1\n";
  }
  const MountPlan plan = load_mount_plan(file, fake_env());
  CHECK(plan.file == file.string());
  CHECK(plan.orchestrator.module == "loop-basic");
  REQUIRE(plan.warnings.size() == 1);
  CHECK(plan.warnings[0].starts_with(file.string() + ":2:1: extras:"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the process environment is the default lookup") {
  ::setenv("AMP_MOUNT_PLAN_TEST_VAR", "from-env", 1);
  CHECK(process_env()("AMP_MOUNT_PLAN_TEST_VAR") == "from-env");
  ::unsetenv("AMP_MOUNT_PLAN_TEST_VAR");
  CHECK_FALSE(process_env()("AMP_MOUNT_PLAN_TEST_VAR").has_value());
}
