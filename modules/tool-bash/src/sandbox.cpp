#include "sandbox.hpp"

#include "amplifier/module_support/path_policy.hpp"
#include "amplifier/module_support/paths.hpp"

#include <boost/json/serialize.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace tool_bash {

namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
namespace ms = amplifier::module_support;

const fs::path kTmp = "/tmp";
// Home folders: hidden unless the operator made one (or a folder above it) a working root or a
// writable path.
constexpr std::string_view kHomeFolders[] = {"/root"};
// Where secrets and sockets live: hidden even inside a folder the operator granted (a working
// directory of $HOME still does not show ~/.ssh or the host's keys file). Relative ones are
// in $HOME; a variable that is set replaces its default.
constexpr std::string_view kSecretFolders[] = {"/run", "/var/run", ".ssh", ".gnupg", ".aws",
                                               ".kube", ".docker"};
struct XdgFolder {
  const char *variable;
  std::string_view default_in_home;
};
constexpr XdgFolder kSecretXdgFolders[] = {{"XDG_CONFIG_HOME", ".config"},
                                           {"XDG_DATA_HOME", ".local/share"},
                                           {"XDG_STATE_HOME", ".local/state"},
                                           {"XDG_RUNTIME_DIR", ""}};
// Files that hold secrets, replaced by an empty file (relative ones are in $HOME).
constexpr std::string_view kSecretFiles[] = {"/etc/shadow", "/etc/gshadow", ".netrc",
                                             ".git-credentials", ".pgpass"};
// The host variables every sandboxed command gets (besides sandbox.environment); LC_* too.
constexpr std::string_view kAllowedVariables[] = {"PATH", "HOME", "LANG", "LANGUAGE", "TERM",
                                                  "TZ",   "USER", "LOGNAME"};
constexpr std::chrono::seconds kProbeTimeout{10};
constexpr std::size_t kReasonBytes = 600;

// The sandbox block as a reader: `true`/`false` stand for {enabled: true/false}.
std::optional<ms::ConfigReader> sandbox_block(ms::ConfigReader &config) {
  const json::value *value = config.get_value("sandbox");
  if (!value) return std::nullopt;
  if (value->is_bool())
    return ms::ConfigReader(json::object{{"enabled", value->as_bool()}},
                            config.context() + ": sandbox");
  if (!value->is_object())
    throw config.error("sandbox",
                       "must be true, false or an object {enabled, writable_paths, network, "
                       "unavailable, bwrap_path}, got " +
                           json::serialize(*value));
  return config.get_object("sandbox");
}

WhenUnavailable read_when_unavailable(ms::ConfigReader &block) {
  const std::string text = block.get_string("unavailable", "refuse");
  if (text == "refuse") return WhenUnavailable::refuse;
  if (text == "unsandboxed") return WhenUnavailable::unsandboxed;
  throw block.error("unavailable", "must be 'refuse' or 'unsandboxed', got '" + text + "'");
}

bool within_any(const fs::path &path, const std::vector<fs::path> &roots) {
  return std::any_of(roots.begin(), roots.end(),
                     [&](const fs::path &root) { return tool_filesystem::is_within(path, root); });
}

void add_bind(std::vector<std::string> &arguments, std::string_view option, const fs::path &path) {
  arguments.insert(arguments.end(), {std::string(option), path.string(), path.string()});
}

// bwrap's output on one line for a message; its end (where bwrap says why) kept when long.
std::string trimmed(std::string text) {
  // Without its final full stop, as it goes into a sentence.
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '.'))
    text.pop_back();
  if (text.size() > kReasonBytes) text = "..." + text.substr(text.size() - kReasonBytes);
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text.empty() ? "(no output)" : text;
}

}  // namespace

SandboxConfig read_sandbox_config(ms::ConfigReader &config, const fs::path &working_dir,
                                  const amp::sdk::Host &host) {
  SandboxConfig sandbox;
  std::optional<ms::ConfigReader> block = sandbox_block(config);
  if (!block) return sandbox;
  sandbox.enabled = block->get_bool("enabled", true);
  sandbox.writable_paths = block->get_string_list("writable_paths", sandbox.writable_paths);
  sandbox.network = block->get_bool("network", false);
  sandbox.when_unavailable = read_when_unavailable(*block);
  sandbox.bwrap_path = block->get_string("bwrap_path", sandbox.bwrap_path);
  if (sandbox.bwrap_path.empty()) throw block->error("bwrap_path", "is empty");
  sandbox.environment = block->get_string_list("environment", {});
  for (const auto &name : sandbox.environment)
    if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos)
      throw block->error("environment", "lists '" + name + "', which is not a variable name");
  // A path (not a bare name for PATH) is taken like the other paths: "~", relative to the
  // working directory.
  if (sandbox.bwrap_path.find('/') != std::string::npos)
    sandbox.bwrap_path =
        (working_dir / ms::expand_home(sandbox.bwrap_path)).lexically_normal().string();
  block->warn_unknown_keys(host);
  return sandbox;
}

std::vector<fs::path> resolve_writable_paths(const ms::ConfigReader &config,
                                             const SandboxConfig &sandbox,
                                             const fs::path &working_dir) {
  const tool_filesystem::PathPolicy resolved(working_dir, sandbox.writable_paths,
                                             "sandbox writable");
  for (std::size_t i = 0; i < sandbox.writable_paths.size(); ++i) {
    std::error_code ec;
    if (!fs::exists(resolved.roots()[i], ec))
      throw config.error("sandbox", "lists the writable path '" + sandbox.writable_paths[i] +
                                        "', which does not exist (" + resolved.roots()[i].string() +
                                        ")");
  }
  return resolved.roots();
}

// Trust: `config.environment` is the operator's plan (serve clients and agent files cannot set
// `sandbox`: host/runtime/plan_trust.cpp, agents.cpp), so a credential passes only when the
// operator named it.
std::vector<std::string> sandbox_environment(const SandboxConfig &config,
                                             char *const *host_environment) {
  auto allowed = [&](std::string_view name) {
    return name.starts_with("LC_") ||
           std::find(std::begin(kAllowedVariables), std::end(kAllowedVariables), name) !=
               std::end(kAllowedVariables) ||
           std::find(config.environment.begin(), config.environment.end(), name) !=
               config.environment.end();
  };
  std::vector<std::string> kept;
  for (char *const *entry = host_environment; entry && *entry; ++entry) {
    std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals != std::string_view::npos && allowed(text.substr(0, equals)))
      kept.emplace_back(text);
  }
  return kept;
}

namespace {

// `name` as an absolute path: itself, or inside the host user's home (empty without one).
fs::path in_home(std::string_view name, const fs::path &home) {
  const fs::path path(name);
  if (path.is_absolute()) return path;
  return home.empty() ? fs::path() : home / path;
}

// The folders to cover with an empty tmpfs, as real paths, none inside another, /tmp first.
// Trust: $HOME and $XDG_* are read from the host process's environment, the operator's; a plan
// cannot name them (a serve client's plan may not set `sandbox`, an agent keeps its parent's),
// and what they name is only ever hidden, never shown.
std::vector<fs::path> folders_to_hide(const std::vector<fs::path> &granted, const fs::path &home) {
  std::vector<fs::path> hidden{kTmp};
  // `secret`: hidden even inside a granted folder; otherwise a granted one stays visible.
  auto hide = [&](const fs::path &folder, bool secret) {
    std::error_code ec;
    if (folder.empty() || !folder.is_absolute()) return;
    const fs::path real = fs::canonical(folder, ec);
    if (ec || !fs::is_directory(real, ec) || real == "/" || within_any(real, hidden) ||
        (!secret && within_any(real, granted)))
      return;
    std::erase_if(hidden, [&](const fs::path &h) { return tool_filesystem::is_within(h, real); });
    hidden.push_back(real);
  };
  for (std::string_view folder : kHomeFolders) hide(fs::path(folder), false);
  hide(home, false);
  if (const char *cache = std::getenv("XDG_CACHE_HOME")) hide(fs::path(cache), false);
  for (std::string_view folder : kSecretFolders) hide(in_home(folder, home), true);
  for (const auto &xdg : kSecretXdgFolders) {
    const char *value = std::getenv(xdg.variable);
    hide(value && *value ? fs::path(value)
         : xdg.default_in_home.empty() ? fs::path()
                                       : in_home(xdg.default_in_home, home),
         true);
  }
  return hidden;
}

// The secret files still visible (not under a hidden folder), as real paths.
std::vector<fs::path> files_to_hide(const std::vector<fs::path> &hidden, const fs::path &home) {
  std::vector<fs::path> files;
  for (std::string_view name : kSecretFiles) {
    std::error_code ec;
    const fs::path path = in_home(name, home);
    if (path.empty()) continue;
    const fs::path real = fs::canonical(path, ec);
    if (!ec && fs::is_regular_file(real, ec) && !within_any(real, hidden)) files.push_back(real);
  }
  return files;
}

}  // namespace

Sandbox::Sandbox(SandboxConfig config, std::vector<fs::path> writable,
                 std::vector<fs::path> working_roots)
    : config_(std::move(config)),
      writable_(std::move(writable)),
      working_roots_(std::move(working_roots)) {
  std::vector<fs::path> granted = writable_;
  granted.insert(granted.end(), working_roots_.begin(), working_roots_.end());
  const char *home = std::getenv("HOME");
  const fs::path home_path = home && *home ? fs::path(home) : fs::path();
  hidden_ = folders_to_hide(granted, home_path);
  hidden_files_ = files_to_hide(hidden_, home_path);
  environment_ = sandbox_environment(config_, environ);
}

// Later mounts cover earlier ones, hence the order: writable paths outside the hidden folders,
// then the fresh /dev and /proc and the tmpfs over each hidden folder, then what must stay
// visible inside them (read-only roots first, so a writable path inside one is writable), and
// last the hidden folders made read-only (each mount on its own: what was bound inside stays
// as it was). /tmp stays writable, and empty at each command's start.
std::vector<std::string> Sandbox::bwrap_arguments() const {
  std::vector<std::string> arguments{config_.bwrap_path, "--ro-bind", "/", "/"};
  std::vector<fs::path> writable_inside;
  for (const auto &path : writable_) {
    if (within_any(path, hidden_))
      writable_inside.push_back(path);
    else
      add_bind(arguments, "--bind", path);
  }
  arguments.insert(arguments.end(), {"--dev", "/dev", "--proc", "/proc"});
  for (const auto &folder : hidden_) arguments.insert(arguments.end(), {"--tmpfs", folder});
  // /dev/null itself: a read-only bind of it would be on a nodev mount, where opening the
  // device fails with "Permission denied"; this one reads as empty and swallows writes.
  for (const auto &file : hidden_files_)
    arguments.insert(arguments.end(), {"--dev-bind", "/dev/null", file.string()});
  for (const auto &root : working_roots_) {
    if (within_any(root, hidden_) && !within_any(root, writable_inside))
      add_bind(arguments, "--ro-bind", root);
  }
  for (const auto &path : writable_inside) add_bind(arguments, "--bind", path);
  if (config_.network) {
    // Name resolution may go through a file under /run (systemd-resolved's stub): that file
    // alone is bound back, never its folder.
    std::error_code ec;
    const fs::path resolv = fs::canonical("/etc/resolv.conf", ec);
    if (!ec && fs::is_regular_file(resolv, ec) && within_any(resolv, hidden_))
      add_bind(arguments, "--ro-bind", resolv);
  }
  for (const auto &folder : hidden_)
    if (folder != kTmp) arguments.insert(arguments.end(), {"--remount-ro", folder.string()});
  arguments.insert(arguments.end(), {"--unshare-pid", "--die-with-parent"});
  if (!config_.network) arguments.push_back("--unshare-net");
  return arguments;
}

Command Sandbox::wrap(const Command &command) const {
  Command wrapped{bwrap_arguments(), command.working_dir, true, environment_};
  wrapped.argv.insert(wrapped.argv.end(), {"--chdir", command.working_dir.string(), "--"});
  wrapped.argv.insert(wrapped.argv.end(), command.argv.begin(), command.argv.end());
  return wrapped;
}

std::optional<std::string> Sandbox::unavailable_reason(const fs::path &working_dir) const {
  const RunLimits limits{kProbeTimeout, std::chrono::seconds(1), 64 * 1024};
  Interrupt never;
  RunResult probe;
  try {
    probe = run_command(wrap(shell_command("true", working_dir)), limits, never, {});
  } catch (const SpawnError &e) {
    return std::string(e.what()) + " (is bubblewrap installed? sandbox.bwrap_path is '" +
           config_.bwrap_path + "')";
  }
  if (probe.end == RunEnd::exited && probe.exit_code == 0) return std::nullopt;
  const std::string how =
      probe.end == RunEnd::timed_out
          ? "did not finish within " + std::to_string(kProbeTimeout.count()) + " s"
      : probe.signal != 0 ? "was killed by signal " + std::to_string(probe.signal)
                          : "failed with exit code " + std::to_string(probe.exit_code);
  return config_.bwrap_path + " " + how + ": " + trimmed(probe.output.text());
}

std::string Sandbox::describe() const {
  std::string writable;
  for (const auto &path : writable_) writable += path.string() + ", ";
  return "Commands run in a sandbox: the filesystem is read-only except " + writable +
         "a private /tmp (empty at each command's start); the home folder and /run are empty; " +
         (config_.network ? "network access is allowed." : "there is no network access.");
}

}  // namespace tool_bash
