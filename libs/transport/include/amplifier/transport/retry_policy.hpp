// When and how long to wait before retrying a failed request.
#pragma once

#include "amplifier/errors.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

namespace amplifier::transport {

struct RetryOptions {
  int max_retries = 2;  // retries after the first attempt; 0 disables retrying
  std::chrono::milliseconds min_retry_delay{500};
  std::chrono::milliseconds max_retry_delay{8000};
  // Each wait is reduced by up to this fraction at random, so that clients that failed
  // together do not retry together.
  double jitter = 0.25;
  // `overloaded` errors wait this many times the computed backoff (may exceed max_retry_delay).
  double overloaded_delay_multiplier = 1.0;
  // Server hints (retry-after...) longer than this are not honoured: the backoff is used.
  std::chrono::milliseconds max_honoured_retry_after{60'000};
};

struct RetryDecision {
  bool retry = false;
  std::chrono::milliseconds delay{0};
  std::string reason;  // why not, when retry is false (for logs)
};

// What a retry hook sees before each wait; `attempt` is the number of the attempt about to be
// made (2 for the first retry).
struct RetryNotice {
  int attempt = 0;
  std::chrono::milliseconds delay{0};
  const KernelError &error;
};
// {"attempt", "delay" (seconds), "error": <KernelError JSON>}: the `provider:retry` payload.
boost::json::object to_json(const RetryNotice &notice);

class RetryPolicy {
 public:
  // The default seed differs per policy without reading the system's entropy for each call
  // (std::random_device costs microseconds, and every request makes a policy).
  explicit RetryPolicy(RetryOptions options = {}, std::uint64_t seed = fresh_seed());
  static std::uint64_t fresh_seed();

  // `retries_done` is how many retries were already made (0 after the first failure).
  // Never retries once streamed content has reached the user (`content_delivered`), nor an
  // error whose `retryable` is false (x-should-retry already folded in by map_http_error).
  // Honours error.retry_after up to max_honoured_retry_after.
  RetryDecision decide(const KernelError &error, int retries_done, bool content_delivered);

  // The jittered exponential backoff for retry number `retries_done` + 1, without hints.
  std::chrono::milliseconds backoff(int retries_done);

  const RetryOptions &options() const { return options_; }

 private:
  RetryOptions options_;
  std::mt19937_64 random_;
};

}  // namespace amplifier::transport
