// Benchmark of context-postgres against a local PostgreSQL 15 started the way its tests start
// one (tests/support/pg_test_server.hpp: initdb + pg_ctl in a temp dir, Unix socket only, as
// `nobody` when run as root), with the server's default durability (fsync on, synchronous
// commit): every append is one committed transaction.
//   1. appends per second through add_message, and the cost of one append (median, p99);
//      then the same with synchronous_commit off for the connection (set through the dsn), which
//      leaves out the WAL flush at each commit: what the module and the protocol cost alone;
//   2. the time to resume the session those appends made (mount + reading every row).
// Usage: bench_context_postgres [messages]   (default 2000). Not a test: run it by hand.
#include "pg_test_server.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace json = boost::json;

// Turns of a question and a 1 KB answer.
std::string bench_message(std::size_t index) {
  if (index % 2 == 0)
    return json::serialize(
        json::object{{"role", "user"}, {"content", "question " + std::to_string(index)}});
  json::array blocks{json::object{{"type", "text"}, {"text", std::string(1024, 'a')}}};
  return json::serialize(json::object{{"role", "assistant"}, {"content", std::move(blocks)}});
}

std::unique_ptr<amplifier::Session> mount(const std::string &dsn, const std::string &id) {
  const std::string yaml =
      "session:\n  orchestrator: loop-basic\n  context:\n    module: context-postgres\n"
      "    config: {dsn: " +
      json::serialize(json::value(dsn)) +
      "}\n"
      "providers:\n  - module: provider-mock\n";
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.session_id = id;
  auto session =
      std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(yaml, "bench"), options);
  session->initialize();
  return session;
}

double micros(Clock::duration duration) {
  return std::chrono::duration<double, std::micro>(duration).count();
}

// Appends `count` messages one by one; returns the duration of each.
std::vector<double> append_all(amplifier::Session &session, std::size_t count) {
  auto *context = session.coordinator().context();
  const auto &table = *context->table<amp_context_vtable>();
  std::vector<double> costs;
  costs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string message = bench_message(i);
    const auto start = Clock::now();
    if (table.add_message(context->instance, amp::sdk::to_amp(message)) != AMP_OK)
      throw std::runtime_error("append " + std::to_string(i) + " failed");
    costs.push_back(micros(Clock::now() - start));
  }
  return costs;
}

double percentile(std::vector<double> values, double share) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(share * static_cast<double>(values.size() - 1))];
}

void report_appends(const std::string &label, const std::string &dsn, const std::string &id,
                    std::size_t count) {
  std::vector<double> costs = append_all(*mount(dsn, id), count);
  double total_us = 0;
  for (double cost : costs) total_us += cost;
  fmt::print(
      "{:<24} {:>6.0f} appends/s; one append: median {:.0f} us, p99 {:.0f} us, max {:.0f} us\n",
      label + ":", static_cast<double>(count) / (total_us / 1e6), percentile(costs, 0.5),
      percentile(costs, 0.99), percentile(costs, 1.0));
}

}  // namespace

int main(int argc, char **argv) try {
  const std::size_t count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;
  amplifier::set_log_level(amplifier::LogLevel::Error);
  amp_test::PgTestServer server;
  const std::string dsn = server.create_database("bench");
  fmt::print("server: {} (default durability: fsync on); {} messages, one transaction each\n",
             server.directory().string(), count);

  report_appends("commit flushed", dsn, "bench-session", count);
  report_appends("synchronous_commit off", dsn + " options='-c synchronous_commit=off'",
                 "bench-async", count);

  const auto start = Clock::now();
  auto resumed = mount(dsn, "bench-session");
  fmt::print("resume of {} messages (whole session mount): {:.1f} ms\n", count,
             micros(Clock::now() - start) / 1000);
  return 0;
} catch (const std::exception &e) {
  fmt::print(stderr, "bench_context_postgres: {}\n", e.what());
  return 1;
}
