// The config field kinds through `amplifier init --provider provider-init-fields` (a test
// module): show_when, requires_model, choices, booleans, numbers, secrets with and without an
// env_var, answers kept from an earlier run, and the provider's reason when the check fails.
#include "settings_reader.hpp"

#include "text_checks.hpp"

#include <doctest/doctest.h>

using namespace init_test;

namespace {

using amp_test::contains;

amp_test::ProcessResult init_fields(const Scratch &s, std::vector<std::string> sets) {
  std::vector<std::string> args{"init", "--provider", "provider-init-fields"};
  for (auto &set : sets) {
    args.push_back("--set");
    args.push_back(std::move(set));
  }
  return run_amplifier(args, s.options());
}

}  // namespace

TEST_CASE("show_when: a field for another choice is an error; for the chosen one it is saved") {
  Scratch s;
  auto hidden = init_fields(s, {"api_key=good-key", "us_zone=z1"});
  CHECK(hidden.exit_code == 1);
  CHECK(contains(hidden.err, "--set us_zone: it applies only when region is us"));
  CHECK_FALSE(fs::exists(s.settings));

  auto shown = init_fields(s, {"api_key=good-key", "region=us", "us_zone=z1"});
  INFO("stdout: " << shown.out << "\nstderr: " << shown.err);
  REQUIRE(shown.exit_code == 0);
  const YAML::Node config = provider_config(s);
  CHECK(config["region"].as<std::string>() == "us");
  CHECK(config["us_zone"].as<std::string>() == "z1");
  CHECK(config["api_key"].as<std::string>() == "${INIT_FIELDS_API_KEY}");
  CHECK_FALSE(config["verbose"]);        // its default, accepted: not written
  CHECK_FALSE(config["default_model"]);  // likewise
}

TEST_CASE("requires_model and show_when on a requires_model field") {
  Scratch s;
  auto no_model = init_fields(s, {"api_key=good-key", "default_model=", "effort=low"});
  CHECK(no_model.exit_code == 1);
  CHECK(contains(no_model.err, "--set effort: it needs a model; set default_model too"));

  auto budget_without_high = init_fields(s, {"api_key=good-key", "effort_budget=500"});
  CHECK(budget_without_high.exit_code == 1);
  CHECK(contains(budget_without_high.err,
                 "--set effort_budget: it applies only when effort is high"));
  CHECK_FALSE(fs::exists(s.settings));

  auto all = init_fields(s, {"api_key=good-key", "default_model=m-beta", "effort=HIGH",
                             "effort_budget=500", "verbose=yes", "token=t0k"});
  INFO("stdout: " << all.out << "\nstderr: " << all.err);
  REQUIRE(all.exit_code == 0);
  const YAML::Node config = provider_config(s);
  CHECK(config["default_model"].as<std::string>() == "m-beta");
  CHECK(config["effort"].as<std::string>() == "high");  // the choice as the provider spells it
  // Typed as the provider reads them (the module refuses to mount otherwise, failing the check).
  CHECK(config["effort_budget"].as<int>() == 500);
  CHECK_FALSE(is_quoted(config["effort_budget"]));
  CHECK(config["verbose"].as<bool>() == true);
  CHECK_FALSE(is_quoted(config["verbose"]));
  // A secret without env_var gets a variable of its own.
  CHECK(config["token"].as<std::string>() == "${AMPLIFIER_INIT_FIELDS_TOKEN}");
  const auto keys = key_lines(s);
  CHECK(keys == std::vector<std::string>{"AMPLIFIER_INIT_FIELDS_TOKEN=t0k",
                                         "INIT_FIELDS_API_KEY=good-key"});
}

TEST_CASE("values are checked against their field before anything is written") {
  Scratch s;
  auto choice = init_fields(s, {"api_key=good-key", "region=mars"});
  CHECK(choice.exit_code == 1);
  CHECK(contains(choice.err, "--set region: must be one of: eu, us"));
  auto boolean = init_fields(s, {"api_key=good-key", "verbose=perhaps"});
  CHECK(boolean.exit_code == 1);
  CHECK(contains(boolean.err, "--set verbose: answer y or n"));
  auto shape = init_fields(s, {"api_key=good-key", "effort_budget_typo=1"});
  CHECK(shape.exit_code == 1);
  CHECK(contains(shape.err,
                 "valid keys: api_key, token, region, us_zone, verbose, default_model, "
                 "effort, effort_budget"));
  CHECK_FALSE(fs::exists(s.settings));
}

TEST_CASE("the check's failure carries the provider's own reason") {
  Scratch s;
  auto wrong = init_fields(s, {"api_key=bad-key"});
  CHECK(wrong.exit_code == 1);
  CHECK(contains(wrong.err, "authentication: wrong key for the test service"));
  CHECK_FALSE(fs::exists(s.settings));
  CHECK_FALSE(fs::exists(s.keys));
}

TEST_CASE("a second run keeps what the first saved for the same provider") {
  Scratch s;
  REQUIRE(init_fields(s, {"api_key=good-key", "region=us", "us_zone=z1"}).exit_code == 0);
  const std::string keys_before = read_text(s.keys);
  auto again = init_fields(s, {"verbose=true"});
  INFO("stdout: " << again.out << "\nstderr: " << again.err);
  REQUIRE(again.exit_code == 0);  // the key comes from keys.env: the check passes
  const YAML::Node config = provider_config(s);
  CHECK(config["region"].as<std::string>() == "us");
  CHECK(config["us_zone"].as<std::string>() == "z1");
  CHECK(config["api_key"].as<std::string>() == "${INIT_FIELDS_API_KEY}");
  CHECK(config["verbose"].as<bool>() == true);
  CHECK(read_text(s.keys) == keys_before);

  // Back to the default region: us_zone no longer applies and is dropped.
  REQUIRE(init_fields(s, {"region=eu"}).exit_code == 0);
  CHECK_FALSE(provider_config(s)["region"]);
  CHECK_FALSE(provider_config(s)["us_zone"]);
}
