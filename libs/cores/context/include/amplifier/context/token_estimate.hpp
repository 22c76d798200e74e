// Token estimates for compaction decisions.
//
// Messages are estimated by characters: about four characters per token, counted over the
// message as it would be serialised (a walk of the JSON, no allocation). What the messages do
// not show (tool specs, the system prompt, the provider's own framing) is learnt from real
// usage: when a provider reports the prompt tokens of a request, the difference between that
// and the estimate of the messages sent becomes the request's overhead, added to every later
// estimate. Overestimating only makes compaction start a little earlier.
#pragma once
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace amplifier::context {

inline constexpr std::int64_t kCharsPerToken = 4;

// The length `value` would have serialised, approximately (strings unescaped).
std::size_t serialized_chars(const boost::json::value &value);

// Estimated tokens of one message (at least one).
std::int64_t estimate_message_tokens(const boost::json::value &message);

// The prompt tokens of a usage object: total minus output when the total is known (which is
// right whether or not the provider counts cached tokens inside input_tokens), else input
// plus cache reads and writes. nullopt when it reports nothing usable.
std::optional<std::int64_t> prompt_tokens_of_usage(const boost::json::object &usage);

// The overhead learnt from usage. Thread-safe: requests and usage reports may come from
// different threads.
class UsageCalibration {
 public:
  // Call with the message estimate of each request as it is returned...
  void request_sent(std::int64_t estimated_message_tokens) noexcept;
  // ...and with the prompt tokens the provider reported for it.
  void usage_reported(std::int64_t prompt_tokens) noexcept;
  // Tokens to add to a message estimate (0 before any usage was reported).
  std::int64_t overhead() const noexcept;

 private:
  std::atomic<std::int64_t> last_sent_{-1};
  std::atomic<std::int64_t> overhead_{0};
};

}  // namespace amplifier::context
