// Runs a real child process with captured stdout/stderr, optional stdin, extra environment,
// a working directory and a timeout (the child's process group is killed when it expires).
#pragma once
#include <chrono>
#include <cstdint>
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
  std::chrono::milliseconds signal_to_exit{0};  // from the signal sent, when one was sent
};

struct ProcessOptions {
  std::string stdin_text;
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) the environment
  std::vector<std::string> unset_env;
  std::string working_dir;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // When set: the first time `signal_marker` appears in stdout or stderr, `signal_to_send` goes
  // to the child (not its group), as a user's Ctrl-C or a supervisor's SIGTERM would.
  std::string signal_marker;
  int signal_to_send = 0;
  // When set: the child's RLIMIT_DATA (heap and other private writable memory), so a test can
  // show that a command works in bounded memory. Not applied in sanitizer builds, whose shadow
  // memory alone is far beyond any such limit.
  std::uint64_t data_limit_bytes = 0;
};

ProcessResult run_process(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// Splits text into lines (without the newline characters).
std::vector<std::string> lines_of(const std::string &text);

}  // namespace amp_test
