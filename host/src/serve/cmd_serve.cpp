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

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
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
  int idle_unload_seconds = 300;
  bool print_routes = false;
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

// Gives idle sessions back to the shared store (a plan whose context is context-postgres),
// which releases their lease: another server behind the same load balancer can then continue
// them, and this one reopens them on their next request. Sessions that live only here are
// never unloaded.
class IdleUnloader {
 public:
  IdleUnloader(SessionRegistry &sessions, Metrics &metrics, std::chrono::seconds idle)
      : sessions_(sessions), metrics_(metrics), idle_(idle), thread_([this] { run(); }) {}
  ~IdleUnloader() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    // Sweeps often enough that an idle limit of N seconds is kept to within a fraction of it.
    const auto period = std::clamp<std::chrono::milliseconds>(
        idle_ / 4, std::chrono::milliseconds(100), std::chrono::seconds(10));
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
      lock.unlock();
      for (auto &session : sessions_.take_idle(idle_)) {
        const std::string id = session->id();
        end_session(std::move(session), /*remove_work_dir=*/false);
        sessions_.closed(id);
        metrics_.session_unloaded();
      }
      lock.lock();
    }
  }

  SessionRegistry &sessions_;
  Metrics &metrics_;
  const std::chrono::seconds idle_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is ready
};

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

// --routes: what the server would answer, from the router itself (no plan is loaded).
int print_routes() {
  Metrics metrics;
  SessionRegistry sessions;
  SessionFactory factory({MountPlan{}, {}, {}}, metrics);
  for (const auto &route : Api(factory, sessions, metrics).routes())
    std::printf("%s\n", route.c_str());
  return 0;
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
  if (options.print_routes) return print_routes();
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
  std::optional<IdleUnloader> unloader;
  if (factory.store())
    unloader.emplace(sessions, metrics, std::chrono::seconds(options.idle_unload_seconds));
  HttpServer server(options.http, api);
  const std::string token_note =
      options.http.token ? fmt::format(" (bearer token in {})", token_file().string()) : "";
  std::fprintf(stderr, "amplifier serve: listening on http://%s%s\n", server.address().c_str(),
               token_note.c_str());
  server.wait_for_signal();
  unloader.reset();
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
  cmd->add_option("--idle-unload", options->idle_unload_seconds,
                  "When the plan's context is a shared store (context-postgres): seconds after "
                  "which an idle session is unloaded, so another server can continue it (it is "
                  "reopened here on its next request)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--routes", options->print_routes,
                "Print every route (METHOD /path) the server answers, then exit");
  cmd->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return serve::run(*options); }); });
}

}  // namespace amplifier::host
