// `amplifier trust [DIR]`: the operator says a project folder's `.amplifier/` may be read (its
// MCP servers started, its agents offered). Only the operator runs this command; nothing a
// model, a plan or a repository does adds a folder (README "Security").
#include "command_errors.hpp"
#include "commands.hpp"
#include "operator_question.hpp"

#include "amplifier/folder_trust.hpp"
#include "amplifier/operator_list.hpp"
#include "amplifier/terminal_text.hpp"
#include "amplifier/user_dirs.hpp"


#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace amplifier::host {
namespace fs = std::filesystem;
namespace {

// Folders the operator said no to at the terminal: not asked again (`amplifier trust DIR`
// still trusts one). A line each, like trusted-folders.
fs::path declined_file() { return user_dirs::config() / "declined-folders"; }

bool has_project_config(const fs::path &folder) {
  std::error_code ec;
  return fs::exists(folder / ".amplifier" / "mcp.json", ec) ||
         fs::is_directory(folder / ".amplifier" / "agents", ec);
}

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

void ask_folder_trust_once(const fs::path &folder) {
  if (!operator_at_terminal() || !has_project_config(folder) || folder_trust::is_trusted(folder))
    return;
  std::error_code ec;
  const std::string canonical = fs::canonical(folder, ec).string();
  if (ec) return;
  try {
    auto declined = operator_list::read(declined_file());
    if (std::find(declined.begin(), declined.end(), canonical) != declined.end()) return;
    std::fprintf(stderr,
                 "amplifier: %s has a .amplifier/ folder (MCP servers to start, agents). A "
                 "cloned repository should not run commands as you.\n",
                 terminal_safe(canonical).c_str());
    if (operator_says_yes("Trust this folder?")) {
      folder_trust::trust(canonical);
      std::fprintf(stderr, "trusted: %s (amplifier trust --remove to undo)\n",
                   terminal_safe(canonical).c_str());
    } else {
      declined.push_back(canonical);
      operator_list::write(declined_file(), declined);
      std::fprintf(stderr, "not trusted; not asked again (amplifier trust %s to change that)\n",
                   terminal_safe(canonical).c_str());
    }
  } catch (const std::exception &e) {  // no config folder: nothing is trusted, nothing asked
    std::fprintf(stderr, "amplifier: cannot record the answer: %s\n", e.what());
  }
}

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
