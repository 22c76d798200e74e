// Runs the tools a module build needs (git, cmake, cargo, make) as child processes.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace amplifier::host {

struct CommandResult {
  int exit_code = -1;  // -1 when the program could not start or was killed by a signal
  std::string output;  // stdout and stderr together, interleaved as written
};

struct CommandOptions {
  std::filesystem::path working_dir;                     // empty: the current one
  std::vector<std::pair<std::string, std::string>> env;  // added to the environment
  std::filesystem::path log_file;  // when set, the output is appended here as well
};

// Runs argv[0] (looked up on PATH) with `argv`, waits for it, and returns its exit code and
// output. Never uses a shell, so arguments reach the program exactly as given.
CommandResult run_command(const std::vector<std::string> &argv, const CommandOptions &options = {});

// The last `count` lines of `text`, for an error message about a failed command.
std::string last_lines(const std::string &text, std::size_t count);

}  // namespace amplifier::host
