// `amplifier init --provider ID --set KEY=VALUE`: the real binary writes settings.yaml and
// keys.env after one list_models check against the loopback vendor server, and `amplifier
// run` without --plan then uses that provider, with the environment winning over keys.env.
#include "settings_reader.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include "text_checks.hpp"

#include <doctest/doctest.h>

using namespace init_test;
namespace loopback = amplifier::loopback;

namespace {

const char *kModelsPage = R"({"object":"list","data":[{"id":"gpt-5","object":"model"},
  {"id":"gpt-5-mini","object":"model"}]})";

// A recorded Responses stream whose answer is "Hi there! How can I assist you today?".
loopback::ScriptedResponse recorded_answer() {
  return loopback::ScriptedResponse::sse(
      read_text(fs::path(AMP_VENDOR_FIXTURE_DIR) / "openai_responses_stream_docs.sse"));
}
constexpr const char *kRecordedAnswer = "Hi there! How can I assist you today?";

using amp_test::contains;

}  // namespace

TEST_CASE("init --provider provider-openai: checked, saved, then used by run; env beats keys.env") {
  loopback::LoopbackServer server;
  Scratch s;
  server.enqueue(loopback::ScriptedResponse::json(200, kModelsPage));
  const std::string base_url = server.base_url() + "/v1";
  auto init = run_amplifier({"init", "--provider", "provider-openai", "--set",
                             "api_key=sk-from-init", "--set", "base_url=" + base_url},
                            s.options());
  INFO("init stdout: " << init.out << "\ninit stderr: " << init.err);
  REQUIRE(init.exit_code == 0);
  CHECK(contains(init.out, "lists 2 models"));

  // The one check: GET /models with the typed key.
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "/v1/models");
  CHECK(requests[0].header("authorization") == "Bearer sk-from-init");

  // settings.yaml: the provider, the typed URL, the key only as a reference; defaults not written.
  const YAML::Node settings = settings_of(s);
  CHECK(settings["provider"]["module"].as<std::string>() == "provider-openai");
  const YAML::Node config = settings["provider"]["config"];
  CHECK(config.size() == 2);
  CHECK(config["base_url"].as<std::string>() == base_url);
  CHECK(config["api_key"].as<std::string>() == "${OPENAI_API_KEY}");
  CHECK_FALSE(contains(read_text(s.settings), "sk-from-init"));
  // keys.env: the key under its env_var, readable by the user alone.
  CHECK(read_text(s.keys) == "OPENAI_API_KEY=sk-from-init\n");
  CHECK(mode_of(s.keys) == 0600);
  CHECK(mode_of(s.keys.parent_path()) == 0700);  // created by init, for its secrets

  // run without --plan: the saved provider, its key from keys.env.
  server.enqueue(recorded_answer());
  auto run = run_amplifier({"run", "--format", "jsonl", "hello"}, s.options());
  INFO("run stderr: " << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(
      contains(run.err, "using the built-in plan on provider-openai (from " + s.settings.string()));
  CHECK(contains(run.out, kRecordedAnswer));
  requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].target == "/v1/responses");
  CHECK(requests[1].header("authorization") == "Bearer sk-from-init");

  // The same variable in the environment wins over keys.env.
  server.enqueue(recorded_answer());
  auto env_run = run_amplifier({"run", "--format", "jsonl", "hello"},
                               s.options_with("OPENAI_API_KEY", "sk-from-environment"));
  INFO("second run stderr: " << env_run.err);
  REQUIRE(env_run.exit_code == 0);
  requests = server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[2].header("authorization") == "Bearer sk-from-environment");
}

TEST_CASE("init keeps the other lines of keys.env and makes it 0600; --no-verify makes no call") {
  loopback::LoopbackServer server;
  Scratch s;
  amp_test::write_file(s.keys, "# my keys\nOTHER_TOKEN=abc\nOPENAI_API_KEY=old-key\n");
  fs::permissions(s.keys, fs::perms(0644));
  auto init = run_amplifier({"init", "--provider", "provider-openai", "--no-verify", "--set",
                             "api_key=new-key", "--set", "base_url=" + server.base_url() + "/v1"},
                            s.options());
  INFO("stdout: " << init.out << "\nstderr: " << init.err);
  REQUIRE(init.exit_code == 0);
  CHECK(server.requests().empty());
  // Loading the too-open file at start-up said so.
  CHECK(contains(init.err, "readable by others"));
  const auto lines = key_lines(s);
  CHECK(lines ==
        std::vector<std::string>{"# my keys", "OTHER_TOKEN=abc", "OPENAI_API_KEY=new-key"});
  CHECK(mode_of(s.keys) == 0600);
}

TEST_CASE("a failed check writes nothing and exits 1; the provider's reason is shown") {
  loopback::LoopbackServer server;
  server.set_default_response(loopback::ScriptedResponse::json(
      401, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error",
               "code":"invalid_api_key"}})"));
  Scratch s;
  auto init = run_amplifier({"init", "--provider", "provider-openai", "--set", "api_key=sk-wrong",
                             "--set", "base_url=" + server.base_url() + "/v1"},
                            s.options());
  INFO("stdout: " << init.out << "\nstderr: " << init.err);
  CHECK(init.exit_code == 1);
  CHECK(contains(init.err, "could not list its models"));
  CHECK(contains(init.err, "Incorrect API key provided"));
  CHECK(contains(init.err, "nothing written"));
  CHECK_FALSE(fs::exists(s.settings));
  CHECK_FALSE(fs::exists(s.keys));
  CHECK(server.requests().size() >= 1);
}

TEST_CASE("wrong --set keys and values, missing required fields: errors that name them") {
  Scratch s;
  auto unknown = run_amplifier({"init", "--provider", "provider-openai", "--no-verify", "--set",
                                "api_key=k", "--set", "colour=blue"},
                               s.options());
  CHECK(unknown.exit_code == 1);
  CHECK(contains(unknown.err, "no config field 'colour'"));
  CHECK(contains(unknown.err, "valid keys: api_key, base_url,"));

  auto bad_choice = run_amplifier({"init", "--provider", "provider-openai", "--no-verify", "--set",
                                   "api_key=k", "--set", "reasoning_effort=extreme"},
                                  s.options());
  CHECK(bad_choice.exit_code == 1);
  CHECK(contains(bad_choice.err, "--set reasoning_effort: must be one of: none, minimal, low"));

  auto not_a_number = run_amplifier({"init", "--provider", "provider-anthropic", "--no-verify",
                                     "--set", "api_key=k", "--set", "max_retries=many"},
                                    s.options());
  CHECK(not_a_number.exit_code == 1);
  CHECK(contains(not_a_number.err, "--set max_retries: must be a number"));

  auto missing =
      run_amplifier({"init", "--provider", "provider-anthropic", "--no-verify"}, s.options());
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.err, "needs a value for: api_key (API key; or ANTHROPIC_API_KEY"));

  // The variable in the environment is a value for the field: nothing to type, nothing saved.
  auto from_env = run_amplifier({"init", "--provider", "provider-anthropic", "--no-verify"},
                                s.options_with("ANTHROPIC_API_KEY", "ak-env"));
  INFO(from_env.err);
  CHECK(from_env.exit_code == 0);
  CHECK_FALSE(fs::exists(s.keys));
  CHECK_FALSE(settings_of(s)["provider"]["config"]);
}

TEST_CASE("wrong provider, or no terminal and no --provider: clear errors, nothing written") {
  Scratch s;
  auto unknown = run_amplifier({"init", "--provider", "provider-nope"}, s.options());
  CHECK(unknown.exit_code == 1);
  CHECK(contains(unknown.err, "no provider 'provider-nope' is installed; installed: "));
  CHECK(contains(unknown.err, "provider-openai"));

  auto no_terminal = run_amplifier({"init"}, s.options());  // stdin is a pipe here
  CHECK(no_terminal.exit_code == 1);
  CHECK(contains(no_terminal.err, "standard input is not a terminal"));
  CHECK(contains(no_terminal.err, "--provider"));

  auto set_alone = run_amplifier({"init", "--set", "api_key=k"}, s.options());
  CHECK(set_alone.exit_code == 1);
  CHECK(contains(set_alone.err, "--set needs --provider"));
  CHECK_FALSE(fs::exists(s.settings));
}

TEST_CASE("a provider that will not mount without a base_url is described with the --set one") {
  loopback::LoopbackServer server;
  server.enqueue(loopback::ScriptedResponse::json(200, kModelsPage));
  Scratch s;
  const std::string base_url = server.base_url() + "/v1";
  auto init = run_amplifier(
      {"init", "--provider", "provider-chat-completions", "--set", "base_url=" + base_url},
      s.options());
  INFO("stdout: " << init.out << "\nstderr: " << init.err);
  REQUIRE(init.exit_code == 0);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].target == "/v1/models");
  CHECK(provider_config(s)["base_url"].as<std::string>() == base_url);
  CHECK_FALSE(fs::exists(s.keys));  // no secret given, none saved

  // Without one, the module's own reason comes back.
  Scratch bare;
  auto refused = run_amplifier({"init", "--provider", "provider-chat-completions"}, bare.options());
  CHECK(refused.exit_code == 1);
  CHECK(contains(refused.err, "'base_url' is required"));
}
