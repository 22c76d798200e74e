// `amplifier serve`: the HTTP + SSE API. Sessions run on the kernel's shared worker pool; the
// HTTP side has a few I/O threads of its own.
#include "api.hpp"
#include "auth.hpp"
#include "http_server.hpp"
#include "command_errors.hpp"
#include "commands.hpp"
#include "default_plan.hpp"

#include "amplifier/mount_plan.hpp"
#include "amplifier/user_dirs.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include <sys/resource.h>

namespace amplifier::host {
namespace serve {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

struct ServeOptions {
  HttpServerOptions http;
  std::string plan_file;
  std::string plans_dir;
  std::string root;
  int shutdown_grace_seconds = 30;
};

fs::path default_root() { return user_dirs::data() / "serve"; }

template <class Predicate>
bool wait_until(Clock::time_point deadline, Predicate done) {
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// SIGTERM: no new connections, sessions or turns; running turns get `grace` to finish, then are
// cancelled; every session is then ended (a persistent context has written its transcript).
void drain(HttpServer &server, Api &api, SessionRegistry &sessions, std::chrono::seconds grace) {
  server.stop_accepting();
  api.stop_accepting();
  std::fprintf(stderr, "amplifier serve: shutting down; %zu turn(s) running\n", sessions.running());
  if (!wait_until(Clock::now() + grace, [&] { return sessions.running() == 0; })) {
    std::fprintf(stderr, "amplifier serve: cancelling the turns still running after %llds\n",
                 static_cast<long long>(grace.count()));
    for (const auto &s : sessions.all())
      if (s->running()) s->session().cancel(CancelLevel::Immediate);
  }
  for (const auto &s : sessions.all())
    end_session(sessions.remove(s->id()), /*remove_work_dir=*/false);
  // The last events (each turn's result) reach their clients before the connections close.
  wait_until(Clock::now() + std::chrono::seconds(5), [&] { return server.open_streams() == 0; });
  server.stop();
}

// Every session holds a few descriptors (its client's connection, its vendor's, files and
// pipes of its tools): a thousand need several thousand, and the usual soft limit of 1024
// would refuse connections at a few hundred. The hard limit is what the administrator allows.
void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  const rlim_t was = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0)
    std::fprintf(stderr, "amplifier serve: open files stay limited to %llu\n",
                 static_cast<unsigned long long>(was));
}

int run(ServeOptions options) {
  raise_open_file_limit();
  // Anyone who can reach a non-loopback address could run tools: there a token is required.
  if (!listen_is_loopback(options.http.listen))
    options.http.token = load_or_create_token(token_file());
  MountPlan plan = resolve_plan(options.plan_file, /*with_display=*/false);
  print_plan_warnings(plan);
  Metrics metrics;
  SessionRegistry sessions;
  SessionFactory factory({std::move(plan), options.plans_dir,
                          options.root.empty() ? default_root() : fs::path(options.root)},
                         metrics);
  Api api(factory, sessions, metrics);
  HttpServer server(options.http, api);
  const std::string token_note =
      options.http.token ? fmt::format(" (bearer token in {})", token_file().string()) : "";
  std::fprintf(stderr, "amplifier serve: listening on http://%s%s\n", server.address().c_str(),
               token_note.c_str());
  server.wait_for_signal();
  drain(server, api, sessions, std::chrono::seconds(options.shutdown_grace_seconds));
  std::fprintf(stderr, "amplifier serve: stopped\n");
  return 0;
}

}  // namespace
}  // namespace serve

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
                  "Allow browser requests from this origin ('*': any); default: none");
  cmd->add_option("--io-threads", options->http.io_threads, "HTTP I/O threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--max-body-bytes", options->http.max_body_bytes, "Largest request body")
      ->capture_default_str();
  cmd->add_option("--shutdown-grace", options->shutdown_grace_seconds,
                  "Seconds running turns get to finish on SIGTERM before they are cancelled")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return serve::run(*options); }); });
}

}  // namespace amplifier::host
