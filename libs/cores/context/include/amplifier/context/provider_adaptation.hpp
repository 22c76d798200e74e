// Making a conversation acceptable to the provider that will receive it.
//
// A conversation can hold blocks only their author can take back: thinking signed by one
// vendor, another vendor's (encrypted) reasoning. After a switch of provider (typically a
// resume with another plan) those are left out of the request, each kind recorded once as a
// Degradation, instead of being sent to fail (Anthropic answers HTTP 400 to a thinking block
// whose signature is missing or not its own). The stored history keeps them: switching back
// makes them usable again.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/transcript.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <vector>

namespace amplifier::context {

// A message with the provider that produced it (assistant messages from a provider only).
struct Entry {
  boost::json::value message;
  std::optional<transcript::Origin> origin;
};

// The text that stands in for an assistant message left with no block at all.
inline constexpr std::string_view kOmittedReasoningText =
    "[reasoning from an earlier provider was left out]";

struct Adaptation {
  boost::json::array messages;
  // One per kind of change, with "count" in extra; empty when nothing changed.
  std::vector<Degradation> degradations;
};

// The messages of `entries` as `target` can accept them. Per assistant message:
// - a thinking block without a signature is left out (no provider can verify it);
// - thinking, redacted thinking and reasoning blocks from another provider are left out;
// - a message left with no block gets a short text block instead (kOmittedReasoningText), so
//   the turn structure (user, assistant, ...) stays intact.
// An entry without origin is attributed to `fallback_origin` (e.g. the provider a legacy
// transcript's metadata names); with neither, it is assumed to come from `target` (nothing
// proves otherwise). Providers are the same when their module ids match (mount names when a
// module id is unknown). Messages that need no change are copied unchanged.
Adaptation adapt_for_provider(const std::vector<Entry> &entries, const transcript::Origin &target,
                              const std::optional<transcript::Origin> &fallback_origin);

}  // namespace amplifier::context
