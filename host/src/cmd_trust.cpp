// `amplifier trust [DIR]`: the operator says a project folder's `.amplifier/` may be read (its
// MCP servers started, its agents offered). Only the operator runs this command; nothing a
// model, a plan or a repository does adds a folder (README "Security").
#include "command_errors.hpp"
#include "commands.hpp"

#include "amplifier/folder_trust.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace amplifier::host {
namespace {

struct TrustOptions {
  std::string folder = ".";
  bool list = false;
  bool remove = false;
};

int trust_folder(const TrustOptions &options) {
  if (options.list) {
    for (const auto &folder : folder_trust::trusted()) std::printf("%s\n", folder.c_str());
    return 0;
  }
  if (options.remove) {
    if (!folder_trust::untrust(options.folder)) {
      std::fprintf(stderr, "amplifier: %s was not trusted\n", options.folder.c_str());
      return 1;
    }
    std::printf("no longer trusted: %s\n", options.folder.c_str());
    return 0;
  }
  const auto folder = folder_trust::trust(options.folder);
  std::printf(
      "trusted: %s (its .amplifier/mcp.json and .amplifier/agents/ are read; listed in %s)\n",
      folder.c_str(), folder_trust::file().c_str());
  return 0;
}

}  // namespace

void add_trust_command(CLI::App &app, int &exit_code) {
  auto options = std::make_shared<TrustOptions>();
  CLI::App *cmd = app.add_subcommand(
      "trust",
      "Trust a project folder: its .amplifier/mcp.json (servers to start) and "
      ".amplifier/agents/ are read only once you do");
  cmd->add_option("folder", options->folder, "The folder (default: the current one)");
  cmd->add_flag("--list", options->list, "List the trusted folders");
  cmd->add_flag("--remove", options->remove, "Stop trusting the folder");
  cmd->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return trust_folder(*options); }); });
}

}  // namespace amplifier::host
