// `amplifier serve`: its options, parsed into serve::ServeOptions for the serve library
// (host/serve/server.hpp), which runs the server.
#include "command_errors.hpp"
#include "commands.hpp"
#include "server.hpp"

namespace amplifier::host {
void add_serve_command(CLI::App &app, int &exit_code) {
  auto options = std::make_shared<serve::ServeOptions>();
  CLI::App *cmd = app.add_subcommand("serve",
                                     "Serve sessions over HTTP (JSON API, server-sent "
                                     "events, OpenAI-compatible chat completions)");
  cmd->add_option("--listen", options->http.listen,
                  "HOST:PORT to listen on (port 0: a free one; a non-loopback host requires the "
                  "bearer token)")
      ->capture_default_str();
  cmd->add_option("--plan", options->plan_file, "The default plan (YAML); default: built-in")
      ->check(CLI::ExistingFile);
  cmd->add_option("--plans-dir", options->plans_dir,
                  "Folder of plans NAME.yaml that requests may name")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--root", options->root,
                  "Where each session's working directory is made (default: "
                  "$XDG_DATA_HOME/amplifier/serve)");
  cmd->add_option("--cors-origin", options->http.cors_origin,
                  "Allow browser requests from this origin ('*': any, only with the token); "
                  "default: the server's own page only");
  cmd->add_option("--allowed-host", options->http.allowed_hosts,
                  "A Host name clients may use besides IP addresses and localhost (repeatable; "
                  "requests naming any other are refused, which stops DNS rebinding)");
  cmd->add_flag("--no-auth", options->no_auth,
                "Loopback only: require no token (any local program or web page can then run "
                "sessions)");
  cmd->add_flag("--allow-inline-plans", options->allow_inline_plans,
                "Let clients send a plan of their own ('plan': {...}) instead of naming one of "
                "the operator's; such a plan still may not name sources, start programs, set "
                "paths, URLs or keys, or read the server's environment");
  cmd->add_option("--io-threads", options->http.io_threads, "HTTP I/O threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--max-body-bytes", options->http.max_body_bytes, "Largest request body")
      ->capture_default_str();
  cmd->add_option("--shutdown-grace", options->shutdown_grace_seconds,
                  "Seconds running turns get to finish on SIGTERM before they are cancelled")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--idle-unload", options->idle_unload_seconds,
                  "When the plan's context is a shared store (context-postgres): seconds after "
                  "which an idle session is unloaded, so another server can continue it (it is "
                  "reopened here on its next request)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--session-expiry", options->session_expiry_seconds,
                  "Seconds after which an idle session that lives only in this server (no shared "
                  "store) is ended and its folder removed; 0: never")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-sessions", options->limits.max_sessions,
                  "Sessions this server holds at once; more get 429")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-metadata-bytes", options->limits.max_metadata_bytes,
                  "Largest 'metadata' a session may carry (as JSON); more get 413")
      ->capture_default_str();
  cmd->add_flag("--routes", options->print_routes,
                "Print every route (METHOD /path) the server answers, then exit");
  cmd->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return serve::run_server(*options); }); });
}

}  // namespace amplifier::host
