// tool-bash's sandbox: each command runs under bubblewrap (bwrap) with
//   - the whole filesystem read-only (`--ro-bind / /`), a fresh /dev, a /proc of its own PID
//     namespace, and /tmp a private tmpfs;
//   - what holds the user's secrets and the host's sockets hidden under empty tmpfs (read-only
//     but /tmp's): the host user's $HOME and /root (unless the operator made one a working
//     root or writable path), and always, even inside a granted folder, /run (the user's
//     runtime folder, D-Bus, the Docker and PostgreSQL sockets), the XDG config/data/state
//     folders (the host's config folder, serve's token, the keys file), ~/.ssh, ~/.gnupg,
//     ~/.aws, ~/.kube, ~/.docker; /etc/shadow, /etc/gshadow, ~/.netrc, ~/.git-credentials and
//     ~/.pgpass replaced by an empty file: a command a model asked for reads none of them,
//     nor connects to a Unix socket there;
//   - the writable paths (default: the working directory) bound read-write at their own paths;
//   - the allowed working directories inside a hidden folder bound read-only again;
//   - new PID and (unless network is allowed) network namespaces, and --die-with-parent;
//   - an environment built from an allow-list (sandbox_environment), not the host's.
// Who grants: the operator's plan (writable_paths, allowed_paths, environment); a serve
// client's plan may not set `sandbox` at all (host/runtime/plan_trust.cpp), and an agent file may
// only narrow it.
//
// How it fits the process runner (process_runner.hpp): bwrap is started as the group leader in
// a session of its own; the sandboxed processes stay in that group (no --new-session, which
// would move them out of the group the runner signals), and the new session already keeps them
// from the user's terminal. Killing the group kills bwrap and the command; --die-with-parent
// and the end of the PID namespace take any process that left the group with them. As bwrap
// dies on SIGTERM and takes the namespace with it, a timeout ends a sandboxed command at once,
// without the grace period. A command killed by a signal reports bwrap's exit code 128 + N.
// --die-with-parent ties bwrap to the thread that started it (PR_SET_PDEATHSIG); that thread
// waits in run_command until bwrap has ended, so only the host going away triggers it.
//
// Whether bwrap can run here (installed, user namespaces allowed) is probed once, at create.
#pragma once
#include "process_runner.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier_sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tool_bash {

enum class WhenUnavailable { refuse, unsandboxed };

struct SandboxConfig {
  bool enabled = false;
  std::vector<std::string> writable_paths{"."};  // as listed: "~", relative to the working dir
  bool network = false;
  WhenUnavailable when_unavailable = WhenUnavailable::refuse;
  std::string bwrap_path = "bwrap";  // looked up on PATH when it has no '/'
  // Names of host environment variables passed into the sandbox besides the allow-list
  // (PATH, HOME, LANG, LC_*, TERM, TZ, USER, LOGNAME): what the operator chose to share,
  // credentials included when named.
  std::vector<std::string> environment;
};

// The environment of a sandboxed command ("NAME=value" each) from `host_environment` (as
// `environ`): the allow-list plus the names `config` lists, nothing else.
std::vector<std::string> sandbox_environment(const SandboxConfig &config,
                                             char *const *host_environment);

// Reads the `sandbox` key of tool-bash's config: absent or false is disabled; true, or an
// object (whose `enabled` defaults to true), enables it. A bwrap_path with a '/' is made
// absolute against `working_dir`. Throws ConfigError naming the key for a bad value; warns
// about unknown keys inside the block.
SandboxConfig read_sandbox_config(amplifier::module_support::ConfigReader &config,
                                  const std::filesystem::path &working_dir,
                                  const amp::sdk::Host &host);

// The writable paths as real paths, resolved like the allowed paths. Each must exist (bwrap
// cannot bind a missing path): a ConfigError from `config` names the one that does not.
std::vector<std::filesystem::path> resolve_writable_paths(
    const amplifier::module_support::ConfigReader &config, const SandboxConfig &sandbox,
    const std::filesystem::path &working_dir);

class Sandbox {
 public:
  // `writable`: resolve_writable_paths; `working_roots`: the real paths commands may run in
  // (the tool's allowed_paths). The folders to hide are read from the host's environment
  // ($HOME, $XDG_*) now.
  Sandbox(SandboxConfig config, std::vector<std::filesystem::path> writable,
          std::vector<std::filesystem::path> working_roots);

  // `command` run inside the sandbox, in the same working directory.
  Command wrap(const Command &command) const;

  // Runs `true` in the sandbox once: nullopt when that works, else why not, for a message.
  std::optional<std::string> unavailable_reason(const std::filesystem::path &working_dir) const;

  // For the tool's description: what the command may write and reach.
  std::string describe() const;

 private:
  std::vector<std::string> bwrap_arguments() const;

  SandboxConfig config_;
  std::vector<std::filesystem::path> writable_;
  std::vector<std::filesystem::path> working_roots_;
  std::vector<std::filesystem::path> hidden_;        // covered by a tmpfs, /tmp first
  std::vector<std::filesystem::path> hidden_files_;  // replaced by an empty file
  std::vector<std::string> environment_;
};

}  // namespace tool_bash
