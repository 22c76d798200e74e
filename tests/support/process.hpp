// Runs a real child process with captured stdout/stderr, optional stdin, extra environment,
// a working directory and a timeout (the child's process group is killed when it expires).
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace amp_test {

struct ProcessResult {
  int exit_code = -1;      // -1 when killed by a signal
  int signal = 0;          // the signal that ended it, if any
  bool timed_out = false;
  std::string out;
  std::string err;
};

struct ProcessOptions {
  std::string stdin_text;
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) the environment
  std::vector<std::string> unset_env;
  std::string working_dir;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

ProcessResult run_process(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// Splits text into lines (without the newline characters).
std::vector<std::string> lines_of(const std::string &text);

}  // namespace amp_test
