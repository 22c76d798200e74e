#include "sandbox.hpp"

#include "amplifier/module_support/path_policy.hpp"
#include "amplifier/module_support/paths.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace tool_bash {

namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
namespace ms = amplifier::module_support;

const fs::path kTmp = "/tmp";
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

Sandbox::Sandbox(SandboxConfig config, std::vector<fs::path> writable,
                 std::vector<fs::path> working_roots)
    : config_(std::move(config)),
      writable_(std::move(writable)),
      working_roots_(std::move(working_roots)) {}

// Later mounts cover earlier ones, hence the order: writable paths outside /tmp, then the
// fresh /dev, /proc and /tmp, then what must stay visible under /tmp (read-only roots first,
// so a writable path inside one is writable).
std::vector<std::string> Sandbox::bwrap_arguments() const {
  std::vector<std::string> arguments{config_.bwrap_path, "--ro-bind", "/", "/"};
  std::vector<fs::path> writable_in_tmp;
  for (const auto &path : writable_) {
    if (tool_filesystem::is_within(path, kTmp))
      writable_in_tmp.push_back(path);
    else
      add_bind(arguments, "--bind", path);
  }
  arguments.insert(arguments.end(), {"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"});
  for (const auto &root : working_roots_) {
    if (tool_filesystem::is_within(root, kTmp) && !within_any(root, writable_in_tmp))
      add_bind(arguments, "--ro-bind", root);
  }
  for (const auto &path : writable_in_tmp) add_bind(arguments, "--bind", path);
  arguments.insert(arguments.end(), {"--unshare-pid", "--die-with-parent"});
  if (!config_.network) arguments.push_back("--unshare-net");
  return arguments;
}

Command Sandbox::wrap(const Command &command) const {
  Command wrapped{bwrap_arguments(), command.working_dir, true};
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
         "a private /tmp (empty at each command's start); " +
         (config_.network ? "network access is allowed." : "there is no network access.");
}

}  // namespace tool_bash
