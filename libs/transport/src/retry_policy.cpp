#include "amplifier/transport/retry_policy.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace amplifier::transport {

namespace {
using std::chrono::milliseconds;

milliseconds from_seconds(double seconds) {
  return milliseconds(static_cast<milliseconds::rep>(std::ceil(seconds * 1000.0)));
}
}  // namespace

boost::json::object to_json(const RetryNotice &notice) {
  boost::json::object out;
  out.emplace("attempt", notice.attempt);
  out.emplace("delay", static_cast<double>(notice.delay.count()) / 1000.0);
  out.emplace("error", to_json(notice.error));
  return out;
}

std::uint64_t RetryPolicy::fresh_seed() {
  static const std::uint64_t process_seed = std::random_device{}();
  static std::atomic<std::uint64_t> counter{0};
  // splitmix64 of a counter: distinct, well mixed seeds from one entropy read per process.
  std::uint64_t z = process_seed + 0x9E3779B97F4A7C15ULL * (counter.fetch_add(1) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

RetryPolicy::RetryPolicy(RetryOptions options, std::uint64_t seed)
    : options_(options), random_(seed) {}

milliseconds RetryPolicy::backoff(int retries_done) {
  const double minimum = static_cast<double>(options_.min_retry_delay.count());
  const double maximum = std::max(minimum, static_cast<double>(options_.max_retry_delay.count()));
  const double exponential = minimum * std::pow(2.0, std::clamp(retries_done, 0, 30));
  const double capped = std::min(exponential, maximum);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double jitter = std::clamp(options_.jitter, 0.0, 1.0);
  const double jittered = capped * (1.0 - jitter * unit(random_));
  return milliseconds(static_cast<milliseconds::rep>(std::max(jittered, 0.0)));
}

RetryDecision RetryPolicy::decide(const KernelError &error, int retries_done,
                                  bool content_delivered) {
  RetryDecision decision;
  if (content_delivered) {
    decision.reason = "content was already delivered";
    return decision;
  }
  if (!error.retryable) {
    decision.reason = "the error is not retryable";
    return decision;
  }
  if (retries_done >= options_.max_retries) {
    decision.reason = "retries exhausted";
    return decision;
  }
  decision.retry = true;
  const bool hint_usable = error.retry_after && *error.retry_after >= 0 &&
                           from_seconds(*error.retry_after) <= options_.max_honoured_retry_after;
  if (hint_usable) {
    decision.delay = from_seconds(*error.retry_after);
    return decision;
  }
  decision.delay = backoff(retries_done);
  if (error.kind == ErrorKind::overloaded && options_.overloaded_delay_multiplier > 0) {
    decision.delay = milliseconds(static_cast<milliseconds::rep>(
        static_cast<double>(decision.delay.count()) * options_.overloaded_delay_multiplier));
  }
  return decision;
}

}  // namespace amplifier::transport
