// Three `amplifier serve` processes on one PostgreSQL database behind a real load balancer
// (Debian's nginx, round robin, started here with its own config on loopback ports): 300
// sessions of 3 turns each, every request to whichever server nginx picks, while one server is
// restarted (SIGTERM, then started again on its port) in the middle. Every turn completes, no
// client sees a 409, and every message is in the database.
#include "postgres_test_support.hpp"
#include "load_balancer.hpp"
#include "process.hpp"
#include "serve_harness.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <csignal>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

namespace fs = std::filesystem;

namespace {

using namespace amp_serve_test;
namespace json = boost::json;

}  // namespace

TEST_CASE("300 sessions x 3 turns through nginx over three servers, one restarted mid-run") {
#ifdef AMP_SANITIZER_BUILD
  constexpr int kSessions = 60;  // the same paths, at the sanitizers' pace
#else
  constexpr int kSessions = 300;
#endif
  constexpr int kTurns = 3;
  constexpr int kClients = 6;
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  const std::string plan =
      s.write("shared.yaml",
              "session:\n  orchestrator: loop-streaming\n  context:\n    module: context-postgres\n"
              "    config: " +
                  pgtest::postgres_context(dsn, "\"lease_seconds\": 5") +
                  "\nproviders:\n  - module: provider-mock\n")
          .string();
  std::vector<unsigned short> ports{free_loopback_port(), free_loopback_port(),
                                   free_loopback_port()};
  const unsigned short front = free_loopback_port();
  auto start_server = [&](unsigned short port) {
    return std::make_unique<ServeProcess>(
        s, std::vector<std::string>{"--plan", plan, "--shutdown-grace", "10"},
        "127.0.0.1:" + std::to_string(port));
  };
  std::vector<std::unique_ptr<ServeProcess>> servers;
  for (auto port : ports) servers.push_back(start_server(port));
  NginxBalancer nginx(s.dir, front, ports);
  use_token_of(front, ports[0]);  // the servers share one Scratch, so one token

  std::atomic<int> turns_done{0}, failures{0}, busy{0};
  std::mutex report_mutex;
  std::string first_failure;
  auto fail = [&](const std::string &what) {
    ++failures;
    std::lock_guard lock(report_mutex);
    if (first_failure.empty()) first_failure = what;
  };
  std::vector<std::string> ids(kSessions);
  auto client = [&](int worker) {
    for (int n = worker; n < kSessions; n += kClients) {
      Reply created = request(front, "POST", "/v1/sessions", "{}");
      if (created.status != 201) {
        fail("create: " + std::to_string(created.status) + " " + created.body);
        continue;
      }
      ids[n] = std::string(json::parse(created.body).at("id").as_string());
      for (int t = 0; t < kTurns; ++t) {
        Reply turn = request(front, "POST", "/v1/sessions/" + ids[n] + "/messages",
                             json::serialize(json::object{
                                 {"prompt", "session " + std::to_string(n) + " turn " +
                                                std::to_string(t)}}));
        if (turn.status == 409) ++busy;
        if (turn.status != 200 ||
            last_data(turn.body, "turn:result").find(R"("status":"success")") ==
                std::string::npos)
          fail("turn: " + std::to_string(turn.status) + " " + turn.body.substr(0, 400));
        ++turns_done;
      }
    }
  };
  std::vector<std::thread> clients;
  for (int w = 0; w < kClients; ++w) clients.emplace_back(client, w);
  // A rolling restart of the second server, a third of the way in.
  while (turns_done < kSessions * kTurns / 3 && failures == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  servers[1]->signal(SIGTERM);
  CHECK(servers[1]->wait() == 0);
  servers[1] = start_server(ports[1]);
  for (auto &c : clients) c.join();

  INFO(first_failure);
  if (busy > 0)  // which server refused, and who held the session: in the servers' logs
    for (const auto &server : servers)
      for (const auto &line : amp_test::lines_of(server->err()))
        if (line.find("session store") != std::string::npos) MESSAGE(line);
  CHECK(failures == 0);
  CHECK(busy == 0);
  CHECK(turns_done == kSessions * kTurns);
  // Every prompt and every answer is in the database, exactly once.
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_sessions") ==
        std::to_string(kSessions));
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_messages") ==
        std::to_string(kSessions * kTurns * 2));
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_messages WHERE role = 'user'") ==
        std::to_string(kSessions * kTurns));
}
