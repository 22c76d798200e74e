// Shared by the provider stream targets: a recorded trace of what a translator reported, and
// the invariants every provider's stream mapping must keep:
// - only KernelException escapes (a typed error), nothing else;
// - the same bytes cut into chunks of any size give the same events, response and error;
// - when the stream ends in a response, the kernel's ResponseAssembler fed the events alone
//   rebuilds the same content (what the orchestrator sees live matches what it keeps), and the
//   response round-trips through its JSON.
#pragma once

#include "fuzz_support.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/stream.hpp"
#include "amplifier/transport/ndjson_reader.hpp"
#include "amplifier/transport/sse_parser.hpp"
#include "amplifier_plugin.h"

#include <boost/json.hpp>

#include <cstdlib>
#include <functional>
#include <optional>

namespace amp_fuzz {

namespace json = boost::json;

struct Trace {
  std::vector<json::object> events;  // JSON events and typed deltas, in order
  std::optional<json::array> content;  // the final response's content blocks
  std::optional<json::object> error;  // the KernelError that ended it
  bool operator==(const Trace &) const = default;

  auto event_sink() {
    return [this](const json::object &event) { events.push_back(event); };
  }
  auto delta_sink() {
    return [this](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
      events.push_back(json::object{{"delta", index}, {"kind", static_cast<int>(kind)}, {"text", text}});
    };
  }
};

// Feeds `bytes` in chunks whose sizes `next_size` picks.
inline void feed_chunks(std::string_view bytes, const std::function<std::size_t()> &next_size,
                        const std::function<void(std::string_view)> &feed) {
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = std::min(bytes.size() - at, std::max<std::size_t>(1, next_size()));
    feed(bytes.substr(at, n));
    at += n;
  }
}

// Runs `translate` (bytes, chunk sizer) -> Trace whole and cut up, and checks the invariants.
// `comparable` adjusts both contents before the assembler's is compared with the response's
// (for a field the response deliberately takes from a later event than the live one).
inline void check_stream(std::string_view bytes,
                         const std::function<Trace(std::string_view, const std::function<std::size_t()> &)> &translate,
                         const std::function<json::value(json::value)> &comparable = [](json::value v) { return v; }) {
  const Trace whole = translate(bytes, [&] { return bytes.size(); });
  std::uint64_t h = hash(bytes);
  const Trace pieces = translate(bytes, [&] {
    h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(h >> 58) + 1;  // 1..64
  });
  FUZZ_CHECK(pieces == whole);
  if (bytes.size() <= 2048) FUZZ_CHECK(translate(bytes, [] { return 1; }) == whole);

  if (whole.content) {
    amplifier::ResponseAssembler assembler;
    try {
      for (const json::object &event : whole.events) {
        if (const auto *index = event.if_contains("delta"); index && event.contains("kind")) {
          assembler.feed_delta(index->to_number<std::uint64_t>(),
                               static_cast<amp_delta_kind>(event.at("kind").to_number<int>()),
                               event.at("text").as_string());
        } else {
          assembler.feed(event);
        }
      }
      const json::value rebuilt = comparable(amplifier::to_json(assembler.finish()).at("content"));
      const json::value kept = comparable(*whole.content);
      if (rebuilt != kept && std::getenv("AMP_FUZZ_DEBUG"))
        std::fprintf(stderr, "rebuilt:  %s\nresponse: %s\n", json::serialize(rebuilt).c_str(),
                     json::serialize(kept).c_str());
      FUZZ_CHECK(rebuilt == kept);
    } catch (const amplifier::ModelError &e) {
      std::fprintf(stderr, "the assembler refused the translator's events: %s\n", e.what());
      FUZZ_CHECK(!"events the kernel's assembler accepts");
    }
  }
}

// The KernelError as JSON, checked to round-trip.
inline json::object error_json(const amplifier::KernelError &error) {
  json::object out = amplifier::to_json(error);
  FUZZ_CHECK(amplifier::to_json(amplifier::from_json<amplifier::KernelError>(out)) == out);
  return out;
}

// An SSE stream through `on_event(type, data)`; a last event without its blank line counts
// when `use_unterminated` (as Gemini's call does).
template <class OnEvent>
void feed_sse(std::string_view bytes, const std::function<std::size_t()> &next_size, OnEvent &&on_event,
              bool use_unterminated = false) {
  amplifier::transport::SseParser parser(
      [&](const amplifier::transport::SseEvent &event) { on_event(event.type, event.data); });
  feed_chunks(bytes, next_size, [&](std::string_view chunk) { parser.feed(chunk); });
  const auto end = parser.finish();
  if (use_unterminated && end.unterminated_data)
    on_event(end.unterminated_type.value_or("message"), *end.unterminated_data);
}

}  // namespace amp_fuzz
