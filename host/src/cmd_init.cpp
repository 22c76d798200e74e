// `amplifier init`: sets up the provider the built-in plan uses (settings.yaml, keys.env).
#include "init.hpp"

#include "commands.hpp"

#include <boost/json/object.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <unistd.h>

namespace amplifier::host {

void add_init_command(CLI::App &app, int &exit_code) {
  auto options = std::make_shared<init::InitOptions>();
  CLI::App *cmd = app.add_subcommand(
      "init",
      "Set up the provider `run` and `chat` use without --plan: asks for its config "
      "fields, checks them with one list_models call, writes settings.yaml and keys.env");
  cmd->add_option("--provider", options->provider,
                  "Set up this provider without questions (the answers come from --set)");
  cmd->add_option("--set", options->sets,
                  "KEY=VALUE for one of the provider's config fields (repeatable; with --provider)")
      ->allow_extra_args(false);
  cmd->add_flag("--no-verify", options->no_verify,
                "Save without checking the answers with a list_models call");
  cmd->callback([options, &exit_code] {
    try {
      if (!options->provider.empty()) {
        exit_code = init::run_batch_init(*options);
        return;
      }
      if (!options->sets.empty())
        throw std::runtime_error("--set needs --provider ID (the provider the keys belong to)");
      if (!::isatty(STDIN_FILENO))
        throw std::runtime_error(
            "standard input is not a terminal, so init cannot ask: pass --provider ID and "
            "--set KEY=VALUE for its fields (see amplifier init --help)");
      exit_code = init::run_interactive_init(*options);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "amplifier: error: %s\n", e.what());
      exit_code = 1;
    }
  });
}

}  // namespace amplifier::host
