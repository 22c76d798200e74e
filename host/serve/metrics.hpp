// What `GET /metrics` reports, in the Prometheus text format: sessions, turns, tokens, the
// providers' latency and errors by kind. Thread-safe.
#pragma once
#include "amplifier/hooks.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace amplifier::host::serve {

// A Prometheus histogram: cumulative counts at fixed upper bounds, the sum and the count.
// Not thread-safe by itself (Metrics locks around it).
template <std::size_t N>
class Histogram {
 public:
  explicit constexpr Histogram(std::array<double, N> bounds) : bounds_(bounds) {}
  void observe(double value) {
    for (std::size_t i = 0; i < N; ++i)
      if (value <= bounds_[i]) counts_[i]++;
    count_++;
    sum_ += value;
  }
  // The `# HELP`, `# TYPE` and sample lines of metric `name`.
  void append(std::string &out, std::string_view name, std::string_view help) const;

 private:
  std::array<double, N> bounds_;
  std::array<std::uint64_t, N> counts_{};
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

class Metrics {
 public:
  void session_created() { sessions_created_++; }
  // A session taken back from the shared store, and one unloaded to it when idle.
  void session_reopened() { sessions_reopened_++; }
  void session_unloaded() { sessions_unloaded_++; }
  void turn_finished(std::string_view status);
  void error(std::string_view kind);
  void tokens(std::string_view direction, std::int64_t count);
  // One provider call's cost from the agent loop's ledger:update (null: no known price).
  void call_cost(const boost::json::value &usd);
  void provider_latency(double seconds);
  // An event stream's request read -> its first event handed to the socket.
  void first_event(double seconds);

  // Counts tokens, provider latency and provider/tool errors from a session's events.
  void observe(HookRegistry &hooks);

  // The exposition text; the gauges are passed in by whoever knows them.
  std::string prometheus(std::size_t sessions_open, std::size_t turns_running) const;

 private:
  std::atomic<std::uint64_t> sessions_created_{0};
  std::atomic<std::uint64_t> sessions_reopened_{0};
  std::atomic<std::uint64_t> sessions_unloaded_{0};
  mutable std::mutex mutex_;
  std::map<std::string, std::uint64_t, std::less<>> turns_;   // by status
  std::map<std::string, std::uint64_t, std::less<>> errors_;  // by kind
  std::map<std::string, std::uint64_t, std::less<>> tokens_;  // input | output
  double cost_usd_ = 0;                // the priced calls'
  std::uint64_t unpriced_calls_ = 0;   // calls of a model with no known price
  Histogram<11> provider_latency_{{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}};
  Histogram<12> first_event_{{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}};
};

}  // namespace amplifier::host::serve
