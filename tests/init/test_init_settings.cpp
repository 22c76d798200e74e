// settings.yaml and keys.env as the other commands read them: the saved provider replaces the
// environment's guess, a broken file is a clear error, keys.env reaches every command.
#include "settings_reader.hpp"

#include "text_checks.hpp"

#include <doctest/doctest.h>

using namespace init_test;

namespace {

using amp_test::contains;

}  // namespace

TEST_CASE("settings.yaml's provider comes before a vendor key in the environment") {
  Scratch s;
  amp_test::write_file(s.settings, "provider:\n  module: provider-mock\n");
  auto run = run_amplifier({"run", "--format", "jsonl", "hello"},
                           s.options_with("OPENAI_API_KEY", "sk-not-used"));
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(contains(run.err, "using the built-in plan on provider-mock (from " + s.settings.string()));
  CHECK(contains(run.out, R"("event":"prompt:complete")"));

  // Without settings.yaml the key decides, as before.
  fs::remove(s.settings);
  auto guess = run_amplifier({"run", "--format", "jsonl", "hello"},
                             s.options_with("OPENAI_API_KEY", "sk-guess"));
  CHECK(contains(guess.err, "OPENAI_API_KEY is set, using the built-in plan on provider-openai"));
}

TEST_CASE("a broken settings.yaml stops run with the file, the place and the problem") {
  Scratch s;
  struct Case {
    const char *text;
    const char *problem;
  };
  const Case cases[] = {
      {"provider: [unclosed\n", "not valid YAML"},
      {"provider:\n  modul: provider-openai\n", ":2:3: provider.modul: unknown key"},
      {"provider:\n  module: ../evil\n", ":2:11: provider.module: expected a module id"},
      {"provider:\n  module: provider-openai\n  config: [1, 2]\n",
       ":3:11: provider.config: expected a map"},
      {"- just\n- a list\n", "expected a map with a 'provider' entry"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.text);
    amp_test::write_file(s.settings, c.text);
    auto run = run_amplifier({"run", "hello"}, s.options());
    CHECK(run.exit_code == 1);
    CHECK(run.signal == 0);
    CHECK(contains(run.err, "amplifier: error: " + s.settings.string()));
    CHECK(contains(run.err, c.problem));
  }
  // --plan does not read it.
  auto with_plan = run_amplifier(
      {"run", "--plan", AMP_SOURCE_DIR "/mount-plans/offline.yaml", "hello"}, s.options());
  CHECK(with_plan.exit_code == 0);
}

TEST_CASE("keys.env reaches every command; the environment wins") {
  Scratch s;
  const std::string plan = (s.dir / "plan.yaml").string();
  amp_test::write_file(plan,
                       "session:\n  orchestrator: loop-basic\n  context: context-simple\n"
                       "providers:\n  - module: provider-mock\n    config:\n"
                       "      responses: [{text: \"${INIT_TEST_ANSWER}\"}]\n");
  auto without = run_amplifier({"plan", "check", plan}, s.options());
  CHECK(contains(without.err, "INIT_TEST_ANSWER is not set"));

  amp_test::write_file(s.keys, "INIT_TEST_ANSWER=answer-from-keys\n");
  fs::permissions(s.keys, fs::perms(0600));
  auto with_keys = run_amplifier({"plan", "check", plan}, s.options());
  INFO(with_keys.err);
  CHECK_FALSE(contains(with_keys.err, "INIT_TEST_ANSWER is not set"));
  CHECK_FALSE(contains(with_keys.err, "readable by others"));

  // The mock's answer shows which value won.
  auto run = run_amplifier({"run", "--plan", plan, "--format", "jsonl", "hi"}, s.options());
  CHECK(contains(run.out, "answer-from-keys"));
  auto env_run = run_amplifier({"run", "--plan", plan, "--format", "jsonl", "hi"},
                               s.options_with("INIT_TEST_ANSWER", "answer-from-env"));
  CHECK(contains(env_run.out, "answer-from-env"));
  CHECK_FALSE(contains(env_run.out, "answer-from-keys"));
}
