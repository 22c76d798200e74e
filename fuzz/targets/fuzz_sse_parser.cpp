// The SSE parser (libs/transport). Invariant: the same bytes give the same events, the same
// end-of-stream report, last event id and retry value however they are cut into chunks: whole,
// one byte at a time, in two pieces at every boundary (short inputs) and in pieces of varying
// size.
#include "fuzz_support.hpp"

#include "amplifier/transport/sse_parser.hpp"

#include <optional>
#include <tuple>

namespace {

using amplifier::transport::SseEvent;
using amplifier::transport::SseParser;

struct Outcome {
  std::vector<std::tuple<std::string, std::string, std::string>> events;
  bool truncated = false;
  std::optional<std::string> unterminated_type, unterminated_data;
  std::optional<std::uint64_t> retry;
  std::string last_id;
  bool operator==(const Outcome &) const = default;
};

template <class Cutter>
Outcome parse(std::string_view bytes, Cutter &&next_size) {
  Outcome out;
  SseParser parser([&](const SseEvent &e) {
    out.events.emplace_back(std::string(e.type), std::string(e.data), std::string(e.id));
  });
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = std::min(bytes.size() - at, std::max<std::size_t>(1, next_size()));
    parser.feed(bytes.substr(at, n));
    at += n;
  }
  const auto end = parser.finish();
  out.truncated = end.truncated;
  out.unterminated_type = end.unterminated_type;
  out.unterminated_data = end.unterminated_data;
  out.retry = parser.reconnection_time_ms();
  out.last_id = std::string(parser.last_event_id());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view bytes = amp_fuzz::as_text(data, size);
  const Outcome whole = parse(bytes, [&] { return bytes.size(); });
  for (const auto &[type, text, id] : whole.events) {
    FUZZ_CHECK(!type.empty());
    FUZZ_CHECK(type.find_first_of("\r\n") == std::string::npos);
    FUZZ_CHECK(id.find_first_of("\r\n") == std::string::npos);
  }
  FUZZ_CHECK(parse(bytes, [] { return 1; }) == whole);
  if (bytes.size() <= 256) {
    for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
      bool first = true;
      FUZZ_CHECK(parse(bytes, [&] {
                   const std::size_t n = first ? cut : bytes.size();
                   first = false;
                   return n;
                 }) == whole);
    }
  }
  std::uint64_t h = amp_fuzz::hash(bytes);
  FUZZ_CHECK(parse(bytes, [&] {
               h = h * 6364136223846793005ULL + 1442695040888963407ULL;
               return static_cast<std::size_t>(h >> 59) + 1;  // 1..32
             }) == whole);
  return 0;
}
