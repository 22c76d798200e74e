// Running a child to its end with input and a deadline: the JSON-in, answer-out commands that
// hooks-shell runs (and any caller that needs a short program's stdout and stderr apart).
//
// Trust: like Child, this decides nothing about what runs; the caller says whose command it is.
//
// THREADS: run_to_end blocks the calling thread until the child is reaped; several threads may
// run children at once. SIGPIPE is blocked on the calling thread while it writes the input, so a
// child that does not read its stdin never kills a host that does not ignore the signal.
#pragma once
#include "amplifier/process/child.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace amplifier::process {

struct RunOptions {
  std::string input;  // written to the child's stdin, which is then closed
  std::chrono::milliseconds timeout{60'000};
  // At the timeout: SIGTERM to the group at once, then SIGKILL after this.
  std::chrono::milliseconds kill_grace{1'000};
  // Polled every 100 ms while the child runs (may be empty): true ends the child's group at
  // once with SIGKILL (the caller's turn was cancelled).
  std::function<bool()> cancelled;
  // Each of stdout and stderr is kept up to this many bytes; the rest is read and dropped.
  std::size_t max_output_bytes = 1 << 20;
};

struct RunOutcome {
  int wait_status = 0;  // as waitpid reports it (describe_wait_status names it)
  bool timed_out = false;
  bool cancelled = false;
  std::string out;
  std::string err;
  bool out_cut = false;  // more than max_output_bytes were written
  bool err_cut = false;
  std::chrono::milliseconds elapsed{0};

  // The exit code when the child exited by itself, else -1 (a signal, the timeout, a cancel).
  int exit_code() const noexcept;
};

// Starts `spec` with its three standard streams as pipes (whatever `spec` said of them), writes
// the input, and collects both outputs until the child exits and its pipes close, or the
// timeout passes (then the child's whole group is stopped). A child's background process that
// keeps the pipes open does not hold the call past the timeout. Throws SpawnError when the
// child cannot start.
RunOutcome run_to_end(Spec spec, const RunOptions &options);

// write(2) to a pipe, with SIGPIPE blocked on this thread for the call (and the one it raised
// swallowed): a reader that is gone is EPIPE, never a dead host.
ssize_t write_without_sigpipe(int fd, const char *data, std::size_t size);

}  // namespace amplifier::process
