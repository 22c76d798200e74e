// A server's life: the plan, the session factory and its store, the API, the idle-session
// reaper, the HTTP server, and the drain on SIGTERM. Sessions run on the kernel's shared worker
// pool; the HTTP side has a few I/O threads of its own.
#include "server.hpp"

#include "auth.hpp"
#include "plan_loading.hpp"

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

fs::path default_root() { return user_dirs::data() / "serve"; }

template <class Predicate>
bool wait_until(Clock::time_point deadline, Predicate done) {
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Lets go of idle sessions:
//  - with a shared store (a plan whose context is context-postgres), one idle for `unload` is
//    given back to the store, which releases its lease: another server behind the same load
//    balancer can then continue it, and this one reopens it on its next request;
//  - one that lives only here, idle for `expire` (0: never), is ended and its folder removed:
//    clients cannot make the server hold sessions for ever.
//  - one another server asked for (context:release_requested, SessionFactory's
//    on_store_event), given back at once when it is idle: a round-robin load balancer may send
//    a session's next request anywhere.
class IdleSessionReaper {
 public:
  IdleSessionReaper(SessionRegistry &sessions, Metrics &metrics,
                    std::optional<std::chrono::seconds> unload, std::chrono::seconds expire)
      : sessions_(sessions), metrics_(metrics), unload_(unload), expire_(expire),
        thread_([this] { run(); }) {}

  // Another server wants session `id`: let go of it now if it is idle. Any thread (the
  // context's listening thread calls it), returns at once.
  void release(const std::string &id) {
    {
      std::lock_guard lock(mutex_);
      wanted_.push_back(id);
    }
    wake_.notify_all();
  }
  ~IdleSessionReaper() {
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
    std::chrono::seconds shortest = expire_.count() > 0 ? expire_ : std::chrono::hours(24);
    if (unload_) shortest = std::min(shortest, *unload_);
    const auto period = std::clamp<std::chrono::milliseconds>(
        shortest / 4, std::chrono::milliseconds(100), std::chrono::seconds(10));
    std::unique_lock lock(mutex_);
    auto next_sweep = Clock::now() + period;
    while (!stopping_) {
      wake_.wait_until(lock, next_sweep, [this] { return stopping_ || !wanted_.empty(); });
      if (stopping_) break;
      std::vector<std::string> wanted = std::exchange(wanted_, {});
      const bool sweep = Clock::now() >= next_sweep;
      lock.unlock();
      for (const auto &id : wanted) give_back(id);
      if (sweep) this->sweep();
      lock.lock();
      if (sweep) next_sweep = Clock::now() + period;
    }
  }

  void sweep() {
    if (unload_)
      for (auto &session : sessions_.take_idle(*unload_)) unload(std::move(session));
    if (expire_.count() > 0)
      for (auto &session : sessions_.take_expired(expire_)) {
        const std::string id = session->id();
        end_session(std::move(session), /*remove_work_dir=*/true);
        sessions_.closed(id);
      }
  }

  // Another server asked for session `id`: given back when idle. A turn whose result its
  // client already has (the asking request often comes right after it) is waited for, a
  // moment; one still running keeps the session here.
  void give_back(const std::string &id) {
    if (auto held = sessions_.find(id); held && held->running() && !held->running_for_clients())
      held->wait_idle(std::chrono::seconds(2));
    if (auto session = sessions_.take_if_idle(id)) unload(std::move(session));
  }

  // Gives a session back to the store (its context releases the lease).
  void unload(std::shared_ptr<ServedSession> session) {
    const std::string id = session->id();
    end_session(std::move(session), /*remove_work_dir=*/false);
    sessions_.closed(id);
    metrics_.session_unloaded();
  }

  SessionRegistry &sessions_;
  Metrics &metrics_;
  std::vector<std::string> wanted_;  // ids other servers asked for, not handled yet
  const std::optional<std::chrono::seconds> unload_;
  const std::chrono::seconds expire_;
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
  // A session not running a turn is ended now, and each one whose turn ends during the grace
  // period as soon as it does: in a shared store that gives it back, so another server (a
  // load balancer sends the session's next request elsewhere) takes it at once instead of
  // waiting for this one's slowest turn.
  const auto end_idle = [&] {
    for (const auto &s : sessions.all())
      if (!s->running())
        if (auto removed = sessions.remove(s->id()))
          end_session(std::move(removed), /*remove_work_dir=*/false);
  };
  end_idle();
  if (!wait_until(Clock::now() + grace, [&] {
        end_idle();
        return sessions.running() == 0;
      })) {
    std::fprintf(stderr, "amplifier serve: cancelling the turns still running after %llds\n",
                 static_cast<long long>(grace.count()));
    for (const auto &s : sessions.all())
      if (s->running()) s->session().cancel(CancelLevel::Immediate);
  }
  // A request that began before the drain may still be opening a session (a reopen waits for
  // another server's lease). It can no longer register it (Api::adopt lets it go and answers
  // 503): waiting here, until its answer is written, lets that answer reach its client before
  // the connections close.
  if (!wait_until(Clock::now() + std::chrono::seconds(30),
                  [&] { return api.requests_in_flight() == 0; }))
    std::fprintf(stderr, "amplifier serve: requests still being answered after 30s\n");
  // A chat completion's session may leave the registry meanwhile (its own end retires it):
  // remove returns null for it. Its turn is over only once `done` has handed it to retire,
  // so waiting for the turn first makes wait_for_retired count it.
  for (const auto &s : sessions.all()) {
    if (auto removed = sessions.remove(s->id()))
      end_session(std::move(removed), /*remove_work_dir=*/false);
    else
      s->wait_idle(std::chrono::seconds(30));
  }
  if (!wait_for_retired(std::chrono::seconds(30)))
    std::fprintf(stderr, "amplifier serve: sessions still ending after 30s; exiting anyway\n");
  // The last events (each turn's result) reach their clients before the connections close.
  wait_until(Clock::now() + std::chrono::seconds(5), [&] { return server.open_streams() == 0; });
  server.stop();
  // The Api, the registry and the factory end when the server's run returns; a request still
  // on a worker has them in use (a reopen waits up to the store's handoff and the unloading
  // wait). Such a request registers nothing any more, so it only needs time to finish.
  if (!wait_until(Clock::now() + std::chrono::seconds(120),
                  [&] { return api.requests_working() == 0; })) {
    std::fprintf(stderr,
                 "amplifier serve: requests still being answered after 120s; exiting without "
                 "them (every session was ended)\n");
    std::fflush(nullptr);
    std::_Exit(1);
  }
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

// Every bind needs the token, loopback included: any page the user visits can reach
// 127.0.0.1. --no-auth exists for loopback only (a test rig, a single-user container).
void apply_auth(ServeOptions &options) {
  const bool loopback = listen_is_loopback(options.http.listen);
  if (options.no_auth && !loopback)
    throw std::runtime_error(
        fmt::format("--no-auth is for loopback addresses only; {} can be reached from other "
                    "machines",
                    options.http.listen));
  if (options.no_auth && options.http.cors_origin == "*")
    throw std::runtime_error(
        "--cors-origin '*' needs the token: without it every web page could drive this server");
  if (options.no_auth) {
    std::fprintf(stderr,
                 "amplifier serve: warning: --no-auth: every program and web page that reaches "
                 "%s can run sessions here\n",
                 options.http.listen.c_str());
    return;
  }
  options.http.token = load_or_create_token(token_file());
}

// The address line (tests and scripts read "listening on http://ADDRESS"), then how to open
// the page: the URL whose fragment gives the page its token. One write, so that a reader that
// saw the first line has the second too.
void print_banner(const HttpServer &server, const HttpServerOptions &http) {
  const std::string address = server.address();
  std::string banner = fmt::format("amplifier serve: listening on http://{}\n", address);
  if (http.token) {
    // 0.0.0.0 and [::] are not addresses a browser can open: the page is offered on loopback.
    std::string browsable = address;
    if (address.starts_with("0.0.0.0:")) browsable = "127.0.0.1" + address.substr(7);
    if (address.starts_with("[::]:")) browsable = "[::1]" + address.substr(4);
    banner += fmt::format(
        "amplifier serve: open http://{}/#token={} in a browser; API clients send "
        "'Authorization: Bearer TOKEN' (the token is in {})\n",
        browsable, *http.token, token_file().string());
  }
  std::fputs(banner.c_str(), stderr);
}

}  // namespace

int run_server(ServeOptions options) {
  if (options.print_routes) return print_routes();
  raise_open_file_limit();
  apply_auth(options);
  MountPlan plan = resolve_plan(options.plan_file, /*with_display=*/false);
  print_plan_warnings(plan);
  Metrics metrics;
  SessionRegistry sessions;
  SessionFactory factory({std::move(plan), options.plans_dir,
                          options.root.empty() ? default_root() : fs::path(options.root),
                          options.allow_inline_plans},
                         metrics);
  Api api(factory, sessions, metrics, options.limits);
  std::optional<std::chrono::seconds> unload;
  if (factory.store()) unload = std::chrono::seconds(options.idle_unload_seconds);
  std::optional<IdleSessionReaper> reaper;
  if (unload || options.session_expiry_seconds > 0)
    reaper.emplace(sessions, metrics, unload, std::chrono::seconds(options.session_expiry_seconds));
  if (unload)
    factory.on_store_event([&](const std::string &id, const boost::json::object *signal) {
      if (signal)
        api.apply_signal(id, *signal);
      else if (reaper)
        reaper->release(id);
    });
  HttpServer server(options.http, api);
  print_banner(server, options.http);
  server.wait_for_signal();
  factory.on_store_event(nullptr);  // waits for a call in progress: then no one calls
  reaper.reset();
  drain(server, api, sessions, std::chrono::seconds(options.shutdown_grace_seconds));
  std::fprintf(stderr, "amplifier serve: stopped\n");
  return 0;
}

}  // namespace serve
}  // namespace amplifier::host
