#include "subprocess.hpp"

#include "amplifier/process/child.hpp"
#include "amplifier/process/environment.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace amplifier::host {

// Trust: the commands are the operator's (a plan's git or build source the operator's plan
// named); module_sources.cpp decides which sources may be fetched and built before this runs.
CommandResult run_command(const std::vector<std::string> &argv, const CommandOptions &options) {
  CommandResult result;
  if (argv.empty()) return result;
  process::Spec spec;
  spec.argv = argv;
  spec.environment = process::environment_with(options.env);
  spec.working_dir = options.working_dir;
  spec.stdout_stream = process::Stream::pipe();
  spec.stderr_stream = process::Stream::as_stdout();
  process::Child child;
  try {
    child = process::Child::spawn(spec);
  } catch (const process::SpawnError &error) {
    result.output = error.what();
    return result;
  }

  std::ofstream log;
  if (!options.log_file.empty()) log.open(options.log_file, std::ios::app | std::ios::binary);
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(child.stdout_fd(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd readable{child.stdout_fd(), POLLIN, 0};
      ::poll(&readable, 1, -1);
      continue;
    }
    if (n <= 0) break;
    result.output.append(buffer, static_cast<std::size_t>(n));
    if (log) log.write(buffer, n);
  }
  const int status = child.wait();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string last_lines(const std::string &text, std::size_t count) {
  std::size_t start = text.size();
  while (start > 0 && (text[start - 1] == '\n' || text[start - 1] == '\r')) --start;
  const std::size_t end = start;
  for (std::size_t lines = 0; start > 0; --start)
    if (text[start - 1] == '\n' && ++lines == count) break;
  return text.substr(start, end - start);
}

}  // namespace amplifier::host
