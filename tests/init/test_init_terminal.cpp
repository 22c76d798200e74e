// `amplifier init` on a real terminal (a tmux pane): the questions are answered by typing,
// secrets never reach the screen, a failed check can be retried, and the files are written.
// NO_COLOR and CI are unset, as on a user's terminal.
#include "settings_reader.hpp"
#include "tmux_pane.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using namespace init_test;
using amp_test::TmuxPane;
using namespace std::chrono_literals;

namespace {

// Long enough for a loaded machine; a test waits this long only when it is failing.
constexpr auto kPatience = 20s;
// How long a typed character takes to show up on a pane when it is echoed at all.
constexpr auto kEchoDelay = 500ms;

// Waits for the `nth` appearance of `question`, then types `text` and Enter.
void answer(const TmuxPane &pane, const std::string &question, const std::string &text,
            int nth = 1) {
  REQUIRE_MESSAGE(pane.wait_for(question, kPatience, nth), pane.screen());
  if (!text.empty()) pane.type(text);
  pane.key("Enter");
}

// Types a secret at `question` and proves it is not on the screen before and after Enter.
void answer_secret(const TmuxPane &pane, const std::string &question, const std::string &secret,
                   int nth = 1) {
  REQUIRE_MESSAGE(pane.wait_for(question, kPatience, nth), pane.screen());
  pane.type(secret);
  std::this_thread::sleep_for(kEchoDelay);
  CHECK_MESSAGE(pane.count(secret) == 0, pane.screen());
  pane.key("Enter");
}

}  // namespace

TEST_CASE(
    "init on a terminal: a hidden key, a failed check retried, the model from the list, "
    "requires_model and show_when fields") {
  Scratch s;
  TmuxPane pane(s.shell_command("init"), s.dir.string());
  answer(pane, "Provider (number or id)", "provider-init-fields");
  answer_secret(pane, "api_key - The test key (typing is hidden): ", "bad-key-1234");
  answer(pane, "token - A second secret, without env_var (typing is hidden): ", "");
  REQUIRE_MESSAGE(pane.wait_for("1) eu 2) us", kPatience), pane.screen());
  answer(pane, "region - Where the test service runs [eu]: ", "");
  // us_zone is for region us only: the optional question names verbose alone.
  answer(pane, "Change the 1 optional settings too (verbose)? [y/N]: ", "y");
  answer(pane, "verbose - Say more [y/N]: ", "y");

  REQUIRE_MESSAGE(pane.wait_for("The check failed: ", kPatience), pane.screen());
  CHECK(pane.count("authentication: wrong key for the test service") == 1);
  answer(pane, "[r]etry with other answers, [s]ave anyway, [q]uit without saving [r]: ", "r");
  answer_secret(pane, "api_key - The test key (typing is hidden) [Enter keeps the one you typed]: ",
                "good-key");
  answer(pane, "token - A second secret, without env_var (typing is hidden): ", "", 2);
  answer(pane, "region - Where the test service runs [eu]: ", "", 2);
  answer(pane, "Change the 1 optional settings too (verbose)? [y/N]: ", "", 2);  // kept: y

  REQUIRE_MESSAGE(pane.wait_for("OK: 2 models.", kPatience), pane.screen());
  REQUIRE_MESSAGE(pane.wait_for("models the provider lists:  1) m-alpha 2) m-beta", kPatience),
                  pane.screen());
  answer(pane, "default_model - The model [m-default]: ", "2");
  REQUIRE_MESSAGE(pane.wait_for("1) low 2) high", kPatience), pane.screen());
  answer(pane, "effort - How hard the model tries: ", "2");
  answer(pane, "effort_budget - Tokens for high effort: ", "750");
  REQUIRE_MESSAGE(pane.wait_for("init exited: 0", kPatience), pane.screen());

  const std::string screen = pane.screen();
  CHECK(screen.find("good-key") == std::string::npos);
  CHECK(screen.find("bad-key-1234") == std::string::npos);
  CHECK(screen.find("us_zone - ") == std::string::npos);
  CHECK(screen.find("wrote " + s.settings.string()) != std::string::npos);

  const YAML::Node config = provider_config(s);
  CHECK(config["api_key"].as<std::string>() == "${INIT_FIELDS_API_KEY}");
  CHECK(config["verbose"].as<bool>() == true);
  CHECK(config["default_model"].as<std::string>() == "m-beta");
  CHECK(config["effort"].as<std::string>() == "high");
  CHECK(config["effort_budget"].as<int>() == 750);
  CHECK_FALSE(config["region"]);  // the default, accepted
  CHECK_FALSE(config["token"]);   // skipped
  CHECK(config.size() == 5);
  CHECK(key_lines(s) == std::vector<std::string>{"INIT_FIELDS_API_KEY=good-key"});
  CHECK(mode_of(s.keys) == 0600);
}

TEST_CASE("init on a terminal with provider-openai, checked against the loopback server") {
  amplifier::loopback::LoopbackServer server;
  server.enqueue(amplifier::loopback::ScriptedResponse::json(
      200, R"({"object":"list","data":[{"id":"gpt-5","object":"model"}]})"));
  Scratch s;
  TmuxPane pane(s.shell_command("init"), s.dir.string());
  answer(pane, "Provider (number or id)", "provider-openai");
  answer_secret(pane, "API key - Your OpenAI API key (typing is hidden): ", "sk-typed-in-tmux");
  answer(pane, "Base URL - API endpoint, including /v1 [https://api.openai.com/v1]: ",
         server.base_url() + "/v1");
  answer(pane, "optional settings too", "n");
  answer(pane, "Model - Model used when a request names none [", "1");
  REQUIRE_MESSAGE(pane.wait_for("init exited: 0", kPatience), pane.screen());
  CHECK(pane.count("sk-typed-in-tmux") == 0);

  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].target == "/v1/models");
  CHECK(requests[0].header("authorization") == "Bearer sk-typed-in-tmux");
  const YAML::Node config = provider_config(s);
  CHECK(config["base_url"].as<std::string>() == server.base_url() + "/v1");
  CHECK(config["default_model"].as<std::string>() == "gpt-5");
  CHECK(read_text(s.keys) == "OPENAI_API_KEY=sk-typed-in-tmux\n");
}

TEST_CASE("Ctrl-C at a hidden question ends init, writes nothing and gives the echo back") {
  Scratch s;
  // The shell outlives init (its trap runs instead of dying) to report the terminal's state.
  const std::string command = "trap 'true' INT; " + s.shell_command("init") +
                              "; stty -a | tr ' ' '\\n' | grep -x -- '-\\?echo'";
  TmuxPane pane(command, s.dir.string());
  answer(pane, "Provider (number or id)", "provider-init-fields");
  REQUIRE_MESSAGE(pane.wait_for("(typing is hidden): ", kPatience), pane.screen());
  pane.key("C-c");
  REQUIRE_MESSAGE(pane.wait_for("init exited: 130", kPatience), pane.screen());
  std::this_thread::sleep_for(kEchoDelay);
  const std::string screen = pane.screen();
  CHECK_MESSAGE(screen.find("\necho\n") != std::string::npos, screen);
  CHECK(screen.find("-echo") == std::string::npos);
  CHECK_FALSE(fs::exists(s.settings));
}
