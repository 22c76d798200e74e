#include "test_support.hpp"

#include <set>

namespace amplifier::transport {
namespace {

using std::chrono::milliseconds;

KernelError retryable_error(ErrorKind kind = ErrorKind::unavailable) { return KernelError::make(kind, "x"); }

RetryOptions options_for_tests() {
  RetryOptions options;
  options.max_retries = 5;
  options.min_retry_delay = milliseconds(100);
  options.max_retry_delay = milliseconds(1000);
  options.jitter = 0.25;
  return options;
}

TEST_CASE("retry: exponential backoff with jitter stays between the bounds") {
  RetryPolicy policy(options_for_tests(), 42);
  for (int trial = 0; trial < 200; ++trial) {
    const auto first = policy.backoff(0);
    CHECK(first >= milliseconds(75));
    CHECK(first <= milliseconds(100));
    const auto third = policy.backoff(2);
    CHECK(third >= milliseconds(300));
    CHECK(third <= milliseconds(400));
    const auto late = policy.backoff(20);
    CHECK(late >= milliseconds(750));
    CHECK(late <= milliseconds(1000));
  }
}

TEST_CASE("retry: jitter actually varies the delay") {
  RetryPolicy policy(options_for_tests(), 7);
  std::set<milliseconds::rep> seen;
  for (int trial = 0; trial < 50; ++trial) seen.insert(policy.backoff(3).count());
  CHECK(seen.size() > 10);
}

TEST_CASE("retry: gives up when not retryable, after content, or when exhausted") {
  RetryPolicy policy(options_for_tests(), 1);
  CHECK(policy.decide(retryable_error(), 0, false).retry);
  CHECK_FALSE(policy.decide(retryable_error(), 0, true).retry);
  CHECK(policy.decide(retryable_error(), 0, true).reason == "content was already delivered");
  CHECK_FALSE(policy.decide(retryable_error(), 5, false).retry);
  CHECK_FALSE(policy.decide(KernelError::make(ErrorKind::invalid_request, "x"), 0, false).retry);
  KernelError forced = KernelError::make(ErrorKind::invalid_request, "x");
  forced.retryable = true;  // what x-should-retry: true produces
  CHECK(policy.decide(forced, 0, false).retry);
  RetryOptions none = options_for_tests();
  none.max_retries = 0;
  CHECK_FALSE(RetryPolicy(none).decide(retryable_error(), 0, false).retry);
}

TEST_CASE("retry: a server hint is honoured exactly, unless it is unreasonably long") {
  RetryPolicy policy(options_for_tests(), 1);
  KernelError error = retryable_error(ErrorKind::rate_limit);
  error.retry_after = 2.5;
  CHECK(policy.decide(error, 0, false).delay == milliseconds(2500));  // beyond max_retry_delay
  error.retry_after = 0.0;
  CHECK(policy.decide(error, 0, false).delay == milliseconds(0));
  error.retry_after = 3600.0;
  const auto decision = policy.decide(error, 0, false);
  CHECK(decision.retry);
  CHECK(decision.delay <= milliseconds(100));  // fell back to the backoff
}

TEST_CASE("retry: overloaded errors multiply the backoff") {
  RetryOptions options = options_for_tests();
  options.jitter = 0;
  options.overloaded_delay_multiplier = 3.0;
  RetryPolicy policy(options, 1);
  CHECK(policy.decide(retryable_error(ErrorKind::overloaded), 1, false).delay == milliseconds(600));
  CHECK(policy.decide(retryable_error(ErrorKind::unavailable), 1, false).delay == milliseconds(200));
}

TEST_CASE("retry: the provider:retry payload") {
  const KernelError error = KernelError::make(ErrorKind::rate_limit, "slow down");
  const auto json = to_json(RetryNotice{2, milliseconds(1500), error});
  CHECK(json.at("attempt").as_int64() == 2);
  CHECK(json.at("delay").as_double() == 1.5);
  CHECK(json.at("error").as_object().at("kind").as_string() == "rate_limit");
}

}  // namespace
}  // namespace amplifier::transport
