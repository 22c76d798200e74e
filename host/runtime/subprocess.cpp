#include "subprocess.hpp"

#include "amplifier/module_support/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace amplifier::host {

CommandResult run_command(const std::vector<std::string> &argv, const CommandOptions &options) {
  CommandResult result;
  int pipe_fds[2];
  if (argv.empty() || ::pipe2(pipe_fds, O_CLOEXEC) != 0) return result;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  if (!options.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());

  std::vector<std::string> args = argv;
  std::vector<std::string> env = module_support::environment_with(options.env);
  auto arg_pointers = module_support::c_string_pointers(args);
  auto env_pointers = module_support::c_string_pointers(env);
  pid_t pid = -1;
  const int spawn_error = ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr,
                                         arg_pointers.data(), env_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawn_error != 0) {
    ::close(pipe_fds[0]);
    result.output = argv[0] + ": cannot run: " + std::strerror(spawn_error);
    return result;
  }

  std::ofstream log;
  if (!options.log_file.empty()) log.open(options.log_file, std::ios::app | std::ios::binary);
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<std::size_t>(n));
    if (log) log.write(buffer, n);
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
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
