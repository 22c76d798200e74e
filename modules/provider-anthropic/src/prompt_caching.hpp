// Prompt-caching breakpoints: `cache_control: {type: ephemeral}` on the blocks whose prefix
// is worth caching. The API accepts at most four per request.
#pragma once
#include <boost/json/object.hpp>

#include <cstddef>
#include <string_view>

namespace provider_anthropic {

inline constexpr std::size_t kMaxCacheBreakpoints = 4;
// Marks a block the request mapping made of request-only (ephemeral) text: no breakpoint is put
// on it or after it in its message. Removed by apply_cache_breakpoints / strip_ephemeral_marks
// before the request is sent.
inline constexpr std::string_view kEphemeralMark = "__amp_ephemeral";

// Removes every kEphemeralMark from the messages' blocks (also when caching is off).
void strip_ephemeral_marks(boost::json::object &body);

// Marks, in this order of preference and within kMaxCacheBreakpoints: the last system block,
// the last tool, and the last block of each of the two most recent user messages (so a turn
// reads the prefix the previous turn wrote). Blocks that cannot carry cache_control (thinking,
// redacted thinking) are skipped in favour of the closest earlier block of the same message.
// A string `system` becomes a one-block array so it can be marked. Returns the number placed.
// `ttl`: "5m" marks {type: ephemeral} (the API's default TTL); "1h" adds ttl: "1h" to each.
std::size_t apply_cache_breakpoints(boost::json::object &body, std::string_view ttl = "5m");

// The number of cache_control markers anywhere in `body` (what the API counts).
std::size_t count_cache_breakpoints(const boost::json::object &body);

}  // namespace provider_anthropic
