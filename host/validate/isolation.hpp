// Runs one check's process: a fresh `amplifier` (the running binary, re-executed), so a
// module that crashes, aborts or hangs takes only that process down, and the check it was in
// is reported as failed. Re-executing rather than forking: by the time a check runs, the
// validator may have threads (and a fork of a threaded process may only call async-signal-
// safe functions), and a fresh process starts each check from the same clean state.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace amplifier::host::validate {

struct IsolatedRun {
  std::string channel_text;  // what the child wrote on its result channel (fd 3)
  std::string stderr_tail;   // the end of its standard error
  int exit_code = -1;        // -1 when a signal ended it
  int signal = 0;
  bool timed_out = false;  // killed (with its process group) at the end of its budget
};

struct IsolationOptions {
  std::vector<std::string> argv;         // argv[0] is the program to run
  std::vector<std::string> environment;  // the complete environment, "NAME=value"
  std::filesystem::path working_dir;
  std::chrono::milliseconds budget{30000};
};

// The file descriptor the child writes its results to.
inline constexpr int kChannelFd = 3;

// Starts the child in a process group of its own, stdin and stdout on /dev/null, waits for
// it within the budget and kills the whole group afterwards (a tool's stray processes too).
// Throws (process::SpawnError, std::system_error) when the process cannot be started.
IsolatedRun run_isolated(const IsolationOptions &options);

// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int signal);

}  // namespace amplifier::host::validate
