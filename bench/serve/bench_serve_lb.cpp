// bench_serve_lb: "many servers, one service" measured. N `amplifier serve` processes (1, 2 and
// 3 in one run) on one throwaway PostgreSQL behind Debian's nginx in round robin; C clients run
// S sessions of T turns each through nginx, every request to whichever server nginx picks (so
// nearly every turn moves its session: the holder lets go, the next server opens it).
// Reported per N: turns per second, p50/p99 turn latency, and the failures (there should be
// none: no 409, no lost message). On 2 cores expect no speed-up from more servers; the figure
// that matters is that nothing fails. Not a test: run it by hand (--help).
#include "load_balancer.hpp"
#include "pg_test_server.hpp"
#include "serve_harness.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

using namespace amp_serve_test;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct Options {
  int sessions = 300;
  int turns = 3;
  int clients = 8;
  int max_servers = 3;
};

struct RunResult {
  int servers = 0;
  double seconds = 0;
  int turns = 0;
  int failures = 0;
  std::string first_failure;
  std::vector<double> latencies_ms;
  std::string stored_messages;
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * values.size()))];
}

RunResult run(const Options &o, int server_count, amp_test::PgTestServer &postgres) {
  const std::string dsn = postgres.create_database("lb" + std::to_string(server_count));
  Scratch s;
  const std::string plan =
      s.write("shared.yaml",
              "session:\n  orchestrator: loop-streaming\n  context:\n    module: context-postgres\n"
              "    config: " +
                  json::serialize(json::object{{"dsn", dsn}}) +
                  "\nproviders:\n  - module: provider-mock\n")
          .string();
  std::vector<unsigned short> ports;
  std::vector<std::unique_ptr<ServeProcess>> servers;
  for (int i = 0; i < server_count; ++i) {
    ports.push_back(free_loopback_port());
    servers.push_back(std::make_unique<ServeProcess>(
        s, std::vector<std::string>{"--plan", plan}, "127.0.0.1:" + std::to_string(ports.back())));
  }
  const unsigned short front = free_loopback_port();
  NginxBalancer nginx(s.dir, front, ports);
  use_token_of(front, ports[0]);  // the servers share one Scratch, so one token

  RunResult result;
  result.servers = server_count;
  std::mutex mutex;
  auto fail = [&](const std::string &what) {
    std::lock_guard lock(mutex);
    if (result.failures++ == 0) result.first_failure = what;
  };
  const auto started = Clock::now();
  auto client = [&](int worker) {
    std::vector<double> mine;
    for (int n = worker; n < o.sessions; n += o.clients) {
      Reply created = request(front, "POST", "/v1/sessions", "{}");
      if (created.status != 201) {
        fail(fmt::format("create: {} {}", created.status, created.body));
        continue;
      }
      const std::string id(json::parse(created.body).at("id").as_string());
      for (int t = 0; t < o.turns; ++t) {
        const auto begun = Clock::now();
        Reply turn = request(front, "POST", "/v1/sessions/" + id + "/messages",
                             json::serialize(json::object{{"prompt", fmt::format("turn {}", t)}}));
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begun).count());
        if (turn.status != 200 ||
            last_data(turn.body, "turn:result").find(R"("status":"success")") == std::string::npos)
          fail(fmt::format("turn: {} {}", turn.status, turn.body.substr(0, 300)));
      }
    }
    std::lock_guard lock(mutex);
    result.latencies_ms.insert(result.latencies_ms.end(), mine.begin(), mine.end());
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < o.clients; ++w) threads.emplace_back(client, w);
  for (auto &t : threads) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.turns = static_cast<int>(result.latencies_ms.size());
  result.stored_messages =
      amp_test::PgTestServer::query_value(dsn, "SELECT count(*) FROM amplifier_messages");
  return result;
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  CLI::App app{"bench_serve_lb: 1..N amplifier serve processes on one PostgreSQL behind nginx"};
  app.add_option("--sessions", o.sessions, "Sessions per run")->capture_default_str();
  app.add_option("--turns", o.turns, "Turns per session")->capture_default_str();
  app.add_option("--clients", o.clients, "Concurrent clients")->capture_default_str();
  app.add_option("--max-servers", o.max_servers, "Runs with 1..N servers")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  amp_test::PgTestServer postgres({"fsync=off", "synchronous_commit=off"});
  std::vector<RunResult> results;
  for (int n = 1; n <= o.max_servers; ++n) {
    std::fprintf(stderr, "bench_serve_lb: %d server(s)...\n", n);
    results.push_back(run(o, n, postgres));
  }
  std::printf("%d sessions x %d turns, %d clients, through nginx (round robin)\n", o.sessions,
              o.turns, o.clients);
  std::printf("%-8s %10s %12s %12s %12s %9s %16s\n", "servers", "seconds", "turns/s",
              "p50 ms", "p99 ms", "failures", "stored messages");
  int failures = 0;
  for (const auto &r : results) {
    std::printf("%-8d %10.2f %12.1f %12.2f %12.2f %9d %16s\n", r.servers, r.seconds,
                r.turns / r.seconds, percentile(r.latencies_ms, 0.5),
                percentile(r.latencies_ms, 0.99), r.failures, r.stored_messages.c_str());
    if (r.failures) std::printf("  first failure: %s\n", r.first_failure.c_str());
    failures += r.failures;
  }
  return failures == 0 ? 0 : 1;
}
