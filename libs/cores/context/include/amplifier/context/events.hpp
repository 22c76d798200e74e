// The events context managers emit or listen to. The kernel's names mirror
// amplifier/events.hpp, which modules do not link; the others are announced on the
// `observability.events` channel by the modules that emit them.
#pragma once
#include <array>
#include <string_view>

namespace amplifier::context::event {
// Kernel events.
inline constexpr std::string_view kPreCompact = "context:pre_compact";
inline constexpr std::string_view kPostCompact = "context:post_compact";
inline constexpr std::string_view kProviderResponse = "provider:response";  // listened to

// Context events of our own.
// A transcript was loaded on resume: counts, skipped lines and repairs.
inline constexpr std::string_view kTranscriptLoaded = "context:transcript_loaded";
// A request had to drop or convert blocks the target provider cannot accept.
inline constexpr std::string_view kDegraded = "context:degraded";

inline constexpr std::array kEmitted = {kPreCompact, kPostCompact, kDegraded, kTranscriptLoaded};
}  // namespace amplifier::context::event
