// bench_serve: load on one real `amplifier serve` process over loopback (issue 15). A paced
// Anthropic-style vendor (the loopback server, in this process) streams each answer as
// `--deltas` text deltas `--interval-ms` apart; a `--tool-fraction` of the sessions first get a
// bash tool call (`sleep --tool-seconds`) and the paced answer after its result. N clients
// (coroutines on `--client-threads` io threads, a connection each) create their sessions, then post
// one prompt each, the posts spread over `--ramp-ms`, and read the event stream to turn:result.
//
// Reported: completion; time to first event; delta latency (the vendor stamps each delta with
// its send time, the driver reads it back from serve's stream: one process, one steady clock),
// also for ordinary sessions while tools ran, with each one's longest wait between deltas then
// (a session stalled behind a tool would show the tool's seconds); serve's peak RSS (VmHWM),
// threads, descriptors and CPU. `--context postgres` runs the same load on context-postgres
// against a throwaway PostgreSQL (after the context-simple baseline, unless --no-baseline) and
// adds turns/s and the cost per appended message, two ways: PostgreSQL's own time on the
// statements (pg_stat_statements: planning and execution, a COMMIT's WAL flush included) and
// serve's extra CPU over the baseline, each divided by the rows the turns stored. Not a test:
// run it by hand.
#include "load_driver.hpp"
#include "load_report.hpp"
#include "process_probe.hpp"

#include "anthropic_scripts.hpp"
#include "pg_test_server.hpp"
#include "serve_harness.hpp"

#include <CLI/CLI.hpp>
#include <libpq-fe.h>
#include <boost/json.hpp>
#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>

#include <sys/resource.h>

namespace bench_serve {
namespace {

namespace json = boost::json;
using amplifier::loopback::LoopbackServer;
using amplifier::loopback::RecordedRequest;
using amplifier::loopback::ScriptedResponse;

constexpr const char *kToolMarker = "[bench-serve-tool]";
constexpr const char *kFloorBinary = BENCH_SERVE_FLOOR;  // bench_serve_floor, built beside this

struct BenchOptions {
  int sessions = 1000;
  int deltas = 100;
  int interval_ms = 10;
  double tool_fraction = 0.1;
  double tool_seconds = 2;
  int ramp_ms = 500;
  int timeout_seconds = 180;
  std::string context = "simple";
  bool baseline = true;
  std::size_t io_threads = 0;  // 0: serve's default
  int client_threads = 2;
  unsigned long serve_open_files = 0;  // 0: what this process has (raised to the hard limit)
  std::vector<std::string> pg_settings;
  int pg_pool_size = 0;  // 0: context-postgres's default
  std::string before;    // another build's amplifier: each run is made on it first
  bool floor = false;    // first a run on the relay floor (bench_serve_floor), same load
};

// The vendor: a paced answer, or (first turn of a tool session) the bash call.
class PacedVendor {
 public:
  explicit PacedVendor(const BenchOptions &o) {
    const ScriptedResponse answer =
        amp_test::paced_answer(o.deltas, std::chrono::milliseconds(o.interval_ms));
    const ScriptedResponse call = amp_test::bash_call(fmt::format("sleep {}", o.tool_seconds));
    server_.set_responder([answer, call](const RecordedRequest &request) {
      const bool asks_for_tool = request.body.find(kToolMarker) != std::string::npos &&
                                 request.body.find("tool_result") == std::string::npos;
      return std::optional<ScriptedResponse>(asks_for_tool ? call : answer);
    });
  }
  std::string base_url() const { return server_.base_url(); }

 private:
  LoopbackServer server_;
};

std::string plan_yaml(const std::string &vendor_url, const std::string &context_yaml) {
  return fmt::format(R"(session:
  orchestrator: loop-streaming
  context: {}
providers:
  - module: provider-anthropic
    config: {{api_key: bench-key, base_url: "{}", max_retries: 0, timeout: 300}}
tools:
  - module: tool-bash
)",
                     context_yaml, vendor_url);
}

// PostgreSQL's own account (pg_stat_statements) of the statements it ran: planning and
// execution time (a COMMIT's includes its WAL flush), and how many.
struct StatementTotals {
  double ms = 0;
  long long calls = 0;
};

// What the bench read about the serve process (and PostgreSQL) around the load.
struct ServeFigures {
  ProcessStatus idle;  // once every session exists, before any turn
  std::int64_t peak_rss_kb = 0;
  int peak_threads = 0;
  std::int64_t peak_fds = 0;
  double cpu_create_s = 0, cpu_turns_s = 0;
  double bench_cpu_turns_s = 0;  // this process (vendor, clients, sampler) during the turns
  double shutdown_ms = 0;
  int exit_code = 0;
  std::string stderr_tail;
  std::string serve_first_event;  // serve's own histogram of it (GET /metrics), formatted
  // PostgreSQL mode only.
  long long rows = 0;
  StatementTotals pg_turns;  // what the server spent on statements during the turns
};

struct RunResult {
  std::string label;
  LoadFigures load;
  ServeFigures serve;
  int appends_expected = 0;  // messages the turns should have appended
  bool postgres = false;
};

// One run's database: fresh, so its rows and statements are its own. The bench's own
// connection is opened before serve starts: a serve holding every connection the server
// allows (one per session, before context-postgres shared them) must not lock it out.
class PgDatabase {
 public:
  PgDatabase(amp_test::PgTestServer &server, const std::string &name)
      : dsn_(server.create_database(name)), conn_(PQconnectdb(dsn_.c_str()), &PQfinish) {
    if (PQstatus(conn_.get()) != CONNECTION_OK)
      throw std::runtime_error("cannot connect to " + dsn_ + ": " + PQerrorMessage(conn_.get()));
    value("CREATE EXTENSION pg_stat_statements");
  }
  const std::string &dsn() const { return dsn_; }

  // The first column of the first row ("" when none). Throws std::runtime_error.
  std::string value(const std::string &sql) const {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql.c_str()),
                                                         &PQclear);
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      throw std::runtime_error(sql + ": " + PQresultErrorMessage(result.get()));
    if (status != PGRES_TUPLES_OK || PQntuples(result.get()) == 0) return "";
    return PQgetvalue(result.get(), 0, 0);
  }

 private:
  std::string dsn_;
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

std::string pg_query(const PgDatabase &pg, const std::string &sql) { return pg.value(sql); }

// pg_stat_statements counts from here on.
void reset_statement_totals(const PgDatabase &pg) {
  pg_query(pg, "SELECT pg_stat_statements_reset()");
}

StatementTotals statement_totals(const PgDatabase &pg) {
  const std::string where =
      " FROM pg_stat_statements WHERE dbid = "
      "(SELECT oid FROM pg_database WHERE datname = current_database())";
  StatementTotals t;
  t.ms =
      std::stod(pg_query(pg, "SELECT coalesce(sum(total_exec_time + total_plan_time), 0)" + where));
  t.calls = std::stoll(pg_query(pg, "SELECT coalesce(sum(calls), 0)" + where));
  return t;
}

double own_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval &t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The messages stored; -1 (and why, on stderr) when the database cannot say.
long long count_rows(const PgDatabase &pg) {
  try {
    return std::stoll(pg_query(pg, "SELECT count(*) FROM amplifier_messages"));
  } catch (const std::exception &e) {
    fmt::print(stderr, "bench_serve: cannot count the stored messages: {}\n", e.what());
    return -1;
  }
}

std::string tail(const std::string &text, std::size_t n) {
  return text.size() > n ? text.substr(text.size() - n) : text;
}

std::optional<amp_serve_test::OpenFileLimit> serve_limit(const BenchOptions &o) {
  if (o.serve_open_files == 0) return std::nullopt;
  rlimit current{};
  ::getrlimit(RLIMIT_NOFILE, &current);
  return amp_serve_test::OpenFileLimit{o.serve_open_files, current.rlim_max};
}

// The bucket bound under which a fraction `q` of serve's first events fall, from its
// amplifier_stream_first_event_seconds histogram ("n/a" for a build without it).
std::string histogram_quantile(const std::string &metrics, double q) {
  const std::string prefix = "amplifier_stream_first_event_seconds_bucket{le=\"";
  std::vector<std::pair<std::string, double>> buckets;  // bound, cumulative count
  for (std::size_t at = 0; (at = metrics.find(prefix, at)) != std::string::npos;) {
    at += prefix.size();
    const std::size_t quote = metrics.find('"', at);
    const std::size_t space = metrics.find(' ', quote);
    buckets.emplace_back(metrics.substr(at, quote - at), std::stod(metrics.substr(space + 1)));
  }
  if (buckets.empty() || buckets.back().second == 0) return "n/a";
  std::string below;  // the last finite bound passed
  for (const auto &[bound, count] : buckets) {
    if (bound == "+Inf") return "> " + below;
    below = fmt::format("{:g} ms", std::stod(bound) * 1000);
    if (count >= q * buckets.back().second) return "<= " + below;
  }
  return "n/a";
}

void stop_serve(amp_serve_test::ServeProcess &serve, ServeFigures &figures) {
  const auto start = Clock::now();
  serve.signal(SIGTERM);
  figures.exit_code = serve.wait(std::chrono::seconds(120));
  figures.shutdown_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  figures.stderr_tail = tail(serve.err(), 2000);
}

// One run: its column's label, the plan's context, the database (postgres) and the amplifier.
struct RunSpec {
  std::string label;
  std::string context_yaml;
  const PgDatabase *pg = nullptr;
  std::string binary;  // empty: this tree's
  bool floor = false;  // `binary` is the relay floor: it gets the vendor's URL, not a plan
};

// The server's arguments after `serve --listen ...`: the relay floor only needs the vendor;
// serve gets a plan naming it.
std::vector<std::string> serve_args(const BenchOptions &o, const PacedVendor &vendor,
                                    const RunSpec &spec, const amp_serve_test::Scratch &scratch) {
  if (spec.floor) return {"--vendor", vendor.base_url()};
  const auto plan = scratch.write("plan.yaml", plan_yaml(vendor.base_url(), spec.context_yaml));
  std::vector<std::string> args{"--plan", plan.string(), "--root", (scratch.dir / "root").string()};
  if (o.io_threads) args.insert(args.end(), {"--io-threads", std::to_string(o.io_threads)});
  return args;
}

RunResult run_once(const BenchOptions &o, const PacedVendor &vendor, const RunSpec &spec) {
  const PgDatabase *pg = spec.pg;
  amp_serve_test::Scratch scratch;
  amp_serve_test::ServeProcess serve(scratch, serve_args(o, vendor, spec, scratch), "127.0.0.1:0",
                                     amp_serve_test::ServeSpawn{serve_limit(o), spec.binary});
  const int pid = serve.pid();

  LoadOptions load;
  load.port = serve.port();
  // The token serve made in the scratch HOME (a build from before tokens makes none).
  const auto file = scratch.dir / "home/config/amplifier/serve-token";
  if (std::filesystem::exists(file)) {
    load.token = amp_serve_test::read_text(file);
    load.token.erase(load.token.find_last_not_of("\n") + 1);
  }
  load.sessions = o.sessions;
  load.tool_fraction = o.tool_fraction;
  load.tool_marker = kToolMarker;
  load.ramp = std::chrono::milliseconds(o.ramp_ms);
  load.timeout = std::chrono::seconds(o.timeout_seconds);
  load.client_threads = o.client_threads;
  LoadDriver driver(load);

  RunResult result{spec.label, {}, {}, 0, pg != nullptr};
  ServeFigures &f = result.serve;
  PeakSampler sampler(pid, std::chrono::milliseconds(10));
  const double cpu_start = cpu_seconds(pid);
  driver.create_sessions();
  const double cpu_created = cpu_seconds(pid);
  f.idle = read_status(pid);
  if (pg) reset_statement_totals(*pg);
  const double bench_cpu_before = own_cpu_seconds();
  driver.run_turns();
  f.cpu_turns_s = cpu_seconds(pid) - cpu_created;
  f.bench_cpu_turns_s = own_cpu_seconds() - bench_cpu_before;
  f.cpu_create_s = cpu_created - cpu_start;
  if (pg) f.pg_turns = statement_totals(*pg);
  sampler.stop();
  const ProcessStatus last = read_status(pid);
  f.peak_rss_kb = std::max(last.hwm_kb, sampler.peak_rss_kb());
  f.peak_threads = sampler.peak_threads();
  f.peak_fds = sampler.peak_fds();
  if (!spec.floor) {
    const std::string metrics = amp_serve_test::request(serve.port(), "GET", "/metrics").body;
    f.serve_first_event = fmt::format("p50 {} / p99 {}", histogram_quantile(metrics, 0.5),
                                      histogram_quantile(metrics, 0.99));
  }
  stop_serve(serve, f);
  if (pg) f.rows = count_rows(*pg);  // every message serve acknowledged

  result.load = figures_of(driver.result());
  for (const auto &s : driver.result().sessions)
    if (s.error.empty())
      result.appends_expected += s.tool ? 4 : 2;  // prompt, (call, result,) answer
  return result;
}

std::string mb(std::int64_t kb) { return fmt::format("{:.1f} MB", static_cast<double>(kb) / 1024); }

double cpu_per_delta(const RunResult &r) {
  return r.serve.cpu_turns_s / std::max<double>(1, r.load.deltas);
}

// What a run's CPU per delta is over the relay floor's, in the same invocation.
std::string cpu_ratio(const RunResult &r, const RunResult &floor) {
  const double base = cpu_per_delta(floor);
  return base > 0 ? fmt::format("{:.2f}x", cpu_per_delta(r) / base) : "n/a";
}

void add_column(Table &table, const RunResult &r, const BenchOptions &o) {
  const LoadFigures &l = r.load;
  const ServeFigures &s = r.serve;
  table.add_column(r.label);
  table.set("sessions completed / failed", fmt::format("{} / {}", l.completed, l.failed));
  table.set("create session p50/p99/max", format_spread(l.create));
  table.set("time to first event p50/p99/max", format_spread(l.first_event));
  table.set("  in serve: request read -> first event sent", s.serve_first_event);
  table.set("delta latency p50/p99/max", format_spread(l.delta));
  table.set("  after each session's first 10", format_spread(l.delta_steady));
  table.set("  ordinary sessions while tools ran", format_spread(l.delta_during_tools));
  table.set("  their longest gap between deltas", format_spread(l.largest_gap_during_tools) +
                                                      fmt::format(" (paced {} ms)", o.interval_ms));
  table.set("tool run (tool:pre -> tool:post)", format_spread(l.tool_run));
  table.set("deltas received", fmt::format("{}", l.deltas));
  table.set("turn (ordinary) median", fmt::format("{:.0f} ms", l.median_turn_ms));
  table.set("turns/s (completed / turns wall)", fmt::format("{:.0f}", l.turns_per_second));
  table.set("serve RSS idle sessions", mb(s.idle.rss_kb));
  table.set("serve peak RSS (VmHWM)", mb(s.peak_rss_kb));
  table.set("serve threads: idle / peak", fmt::format("{} / {}", s.idle.threads, s.peak_threads));
  table.set("serve fds: idle / peak", fmt::format("{} / {}", s.idle.open_fds, s.peak_fds));
  table.set("serve CPU: create / turns",
            fmt::format("{:.2f} s / {:.2f} s", s.cpu_create_s, s.cpu_turns_s));
  table.set("serve CPU per delta (turns CPU / deltas)",
            fmt::format("{:.1f} us", cpu_per_delta(r) * 1e6));
  table.set("bench CPU in turns (vendor, clients)", fmt::format("{:.2f} s", s.bench_cpu_turns_s));
  table.set("serve shutdown (SIGTERM -> exit)",
            fmt::format("{:.0f} ms, exit {}", s.shutdown_ms, s.exit_code));
}

// The cost of an appended message: what postgres adds over the baseline, per row written.
void add_append_costs(Table &table, const RunResult &pg, const RunResult *baseline) {
  const double rows = static_cast<double>(std::max<long long>(pg.serve.rows, 1));
  table.set("rows appended / expected", fmt::format("{} / {}", pg.serve.rows, pg.appends_expected));
  const StatementTotals &t = pg.serve.pg_turns;
  table.set("PostgreSQL time per append (statements)",
            fmt::format("{:.0f} us ({:.1f} statements)", t.ms / rows * 1000,
                        static_cast<double>(t.calls) / rows));
  if (!baseline) return;
  const double extra_cpu = pg.serve.cpu_turns_s - baseline->serve.cpu_turns_s;
  // A difference of two runs: as noisy as the machine.
  table.set("serve CPU per append (over simple)", fmt::format("{:.0f} us", extra_cpu / rows * 1e6));
}

void print_errors(const RunResult &r) {
  for (const auto &e : r.load.first_errors) fmt::print("  {}: {}\n", r.label, e);
  if (r.serve.exit_code != 0 || !r.load.first_errors.empty())
    fmt::print("  {} serve stderr (tail):\n{}\n", r.label, r.serve.stderr_tail);
}

void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

std::unique_ptr<amp_test::PgTestServer> start_postgres(const BenchOptions &o) {
  std::vector<std::string> settings{"shared_preload_libraries=pg_stat_statements",
                                    "pg_stat_statements.track_planning=on"};
  settings.insert(settings.end(), o.pg_settings.begin(), o.pg_settings.end());
  return std::make_unique<amp_test::PgTestServer>(settings);
}

std::string postgres_yaml(const BenchOptions &o, const PgDatabase &db) {
  json::object config{{"dsn", db.dsn()}};
  if (o.pg_pool_size > 0) config["pool_size"] = o.pg_pool_size;
  return "{module: context-postgres, config: " + json::serialize(config) + "}";
}

// The runs in column order: for each build (--before's first), context-simple then postgres.
std::vector<RunResult> run_all(const BenchOptions &o, const PacedVendor &vendor) {
  std::unique_ptr<amp_test::PgTestServer> server;
  std::vector<std::unique_ptr<PgDatabase>> databases;
  std::vector<RunSpec> specs;
  std::vector<std::string> binaries{""};
  if (!o.before.empty()) binaries.insert(binaries.begin(), o.before);
  for (const auto &binary : binaries) {
    const std::string prefix = binary.empty() ? "" : "before: ";
    if (o.context == "simple" || o.baseline)
      specs.push_back({prefix + "context-simple", "context-simple", nullptr, binary});
    if (o.context != "postgres") continue;
    if (!server) server = start_postgres(o);
    const std::string name = "bench_" + std::to_string(databases.size());
    databases.push_back(std::make_unique<PgDatabase>(*server, name));
    specs.push_back({prefix + "context-postgres", postgres_yaml(o, *databases.back()),
                     databases.back().get(), binary});
  }
  if (o.floor) specs.insert(specs.begin(), RunSpec{"relay floor", "", nullptr, kFloorBinary, true});
  std::vector<RunResult> results;
  for (const auto &spec : specs) results.push_back(run_once(o, vendor, spec));
  return results;
}

int run(const BenchOptions &o) {
  raise_open_file_limit();
  PacedVendor vendor(o);
  fmt::print(
      "bench_serve: {} sessions, {} deltas {} ms apart, {:.0f}% run `sleep {}`, turns "
      "started over {} ms\n",
      o.sessions, o.deltas, o.interval_ms, o.tool_fraction * 100, o.tool_seconds, o.ramp_ms);
  const std::vector<RunResult> results = run_all(o, vendor);
  Table table;
  const RunResult *simple = nullptr;  // the last context-simple run: the next postgres one's base
  const RunResult *floor = o.floor ? &results.front() : nullptr;
  for (const auto &r : results) {
    add_column(table, r, o);
    if (floor) table.set("serve CPU per delta / the floor's", cpu_ratio(r, *floor));
    if (r.postgres)
      add_append_costs(table, r, simple);
    else
      simple = &r;
  }
  fmt::print("{}", table.text());
  bool ok = true;
  for (const auto &r : results) {
    print_errors(r);
    ok = ok && r.load.failed == 0;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace bench_serve

int main(int argc, char **argv) {
  bench_serve::BenchOptions o;
  CLI::App app{"Load on one `amplifier serve`: concurrent paced sessions, some running a tool"};
  app.add_option("--sessions", o.sessions, "Concurrent sessions")->capture_default_str();
  app.add_option("--deltas", o.deltas, "Text deltas per answer")->capture_default_str();
  app.add_option("--interval-ms", o.interval_ms, "Between deltas")->capture_default_str();
  app.add_option("--tool-fraction", o.tool_fraction, "Sessions that run the tool first")
      ->capture_default_str();
  app.add_option("--tool-seconds", o.tool_seconds, "The tool's `sleep`")->capture_default_str();
  app.add_option("--ramp-ms", o.ramp_ms, "The turns start evenly spread over this (0: at once)")
      ->capture_default_str();
  app.add_option("--client-threads", o.client_threads,
                 "io threads of the clients (one cannot keep up with 1,000 streams here)")
      ->capture_default_str();
  app.add_option("--timeout", o.timeout_seconds, "Seconds for each phase")->capture_default_str();
  app.add_option("--context", o.context, "simple | postgres")
      ->check(CLI::IsMember({"simple", "postgres"}))
      ->capture_default_str();
  app.add_flag("!--no-baseline", o.baseline, "With postgres: skip the context-simple run");
  app.add_option("--io-threads", o.io_threads, "serve's --io-threads (default: serve's)");
  app.add_option("--serve-open-files", o.serve_open_files,
                 "serve's soft RLIMIT_NOFILE at start (default: this process's, the hard limit)");
  app.add_option("--pg-setting", o.pg_settings, "PostgreSQL NAME=VALUE (repeatable)");
  app.add_option("--before", o.before,
                 "Another build's amplifier (e.g. of an older commit): each run is made on it "
                 "first, in a column of its own");
  app.add_flag("--floor", o.floor,
               "First a run on the relay floor (bench_serve_floor: the vendor's events relayed "
               "as SSE frames on the same transports, no parsing, no hooks), and each run's CPU "
               "per delta over the floor's");
  app.add_option("--pg-pool-size", o.pg_pool_size,
                 "context-postgres pool_size (default: the module's)");
  CLI11_PARSE(app, argc, argv);
  try {
    // The child starts in a scratch folder: a relative path would no longer lead anywhere.
    if (!o.before.empty()) o.before = std::filesystem::absolute(o.before).string();
    return bench_serve::run(o);
  } catch (const std::exception &e) {
    fmt::print(stderr, "bench_serve: {}\n", e.what());
    return 1;
  }
}
