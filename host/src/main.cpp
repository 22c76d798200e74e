// amplifier: runs LLM agents assembled from plugin modules, as a mount plan says.
#include "commands.hpp"
#include "git_source.hpp"
#include "source_trust.hpp"
#include "settings_keys.hpp"

#include "amplifier/log.hpp"
#include "amplifier_plugin.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace {

// How glibc's allocator serves `run` and `chat`, one session at a time. A long answer is copied
// a few times at the end of a turn, each copy on whichever thread handles that step; with the
// defaults each thread's arena hands freed megabytes back to the system and the next copy
// faults fresh pages in, which on a virtual machine costs more than the copying (a third of a
// 2 MB answer's run, measured with perf; bench/peers). One arena, and thresholds that keep large
// blocks on the heap, reuse the same pages instead. Other commands, among them those that run many
// sessions on many threads at once (serve, recipes), keep glibc's defaults. The operator's own malloc
// settings (GLIBC_TUNABLES, MALLOC_ARENA_MAX and friends) win over this.
// Trust: only the process environment is read, which the operator sets (or the operator's own
// keys.env, loaded before). A serve client, a model, a plan (downloaded or not) and a cloned
// repository cannot set it: a project's files are never read here (test_host_cli).
void tune_allocator_for_one_session() {
  const char *tunables = std::getenv("GLIBC_TUNABLES");
  const char *operator_setting =
      tunables && std::string_view(tunables).find("glibc.malloc.") != std::string_view::npos
          ? "GLIBC_TUNABLES"
          : nullptr;
  for (const char *name : {"MALLOC_ARENA_MAX", "MALLOC_ARENA_TEST", "MALLOC_MMAP_THRESHOLD_",
                           "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
    if (!operator_setting && std::getenv(name)) operator_setting = name;
  if (operator_setting) {
    amplifier::log(amplifier::LogLevel::Info, "host",
                   std::string("allocator: the operator's ") + operator_setting + " kept");
    return;
  }
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  amplifier::log(amplifier::LogLevel::Info, "host", "allocator: one arena for one session");
}

}  // namespace

int main(int argc, char **argv) {
  // Before any thread exists (setenv is not thread-safe); the environment wins over the file.
  amplifier::host::load_user_keys();
  CLI::App app{"amplifier: run LLM agents built from plugin modules (providers, orchestrators, "
               "context managers, tools, hooks) as a mount plan says."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "amplifier 0.1.0 (plugin ABI " + std::to_string(AMP_ABI_VERSION_MAJOR) + "." +
                                       std::to_string(AMP_ABI_VERSION_MINOR) + ")");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log kernel and module diagnostics (info level)");
  bool trust_sources = false;
  app.add_flag("--trust-sources", trust_sources,
               "Fetch and build every git module source this command's plans name without "
               "asking, and record each as trusted at its commit (you vouch for the plans)");
  app.parse_complete_callback([&] {
    if (verbose) amplifier::set_log_level(amplifier::LogLevel::Info);
    if (app.got_subcommand("run") || app.got_subcommand("chat")) tune_allocator_for_one_session();
    amplifier::host::source_trust::trust_every_source(trust_sources);
  });

  // git+ sources in mount plans are fetched and built by the host, not the kernel.
  amplifier::host::install_git_source_resolver();

  int exit_code = 0;
  amplifier::host::add_run_command(app, exit_code);
  amplifier::host::add_modules_command(app, exit_code);
  amplifier::host::add_plan_command(app, exit_code);
  amplifier::host::add_sessions_command(app, exit_code);
  amplifier::host::add_chat_command(app, exit_code);
  amplifier::host::add_init_command(app, exit_code);
  amplifier::host::add_agents_command(app, exit_code);
  amplifier::host::add_serve_command(app, exit_code);
  amplifier::host::add_trust_command(app, exit_code);
  amplifier::host::add_recipe_command(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "amplifier: error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}
