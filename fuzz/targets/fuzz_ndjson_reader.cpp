// The NDJSON line reader (libs/transport). Invariants: the same lines however the bytes are
// cut into chunks; no line holds a line feed, and none is blank.
#include "fuzz_support.hpp"

#include "amplifier/transport/ndjson_reader.hpp"

namespace {

using amplifier::transport::NdjsonReader;

struct Outcome {
  std::vector<std::string> lines;
  bool had_final = false;
  bool operator==(const Outcome &) const = default;
};

template <class Cutter>
Outcome read(std::string_view bytes, Cutter &&next_size) {
  Outcome out;
  NdjsonReader reader([&](std::string_view line) { out.lines.emplace_back(line); });
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = std::min(bytes.size() - at, std::max<std::size_t>(1, next_size()));
    reader.feed(bytes.substr(at, n));
    at += n;
  }
  out.had_final = reader.finish();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view bytes = amp_fuzz::as_text(data, size);
  const Outcome whole = read(bytes, [&] { return bytes.size(); });
  for (const std::string &line : whole.lines) {
    FUZZ_CHECK(line.find('\n') == std::string::npos);
    FUZZ_CHECK(line.find_first_not_of(" \t\r") != std::string::npos);  // not blank
  }
  FUZZ_CHECK(read(bytes, [] { return 1; }) == whole);
  if (bytes.size() <= 256) {
    for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
      bool first = true;
      FUZZ_CHECK(read(bytes, [&] {
                   const std::size_t n = first ? cut : bytes.size();
                   first = false;
                   return n;
                 }) == whole);
    }
  }
  std::uint64_t h = amp_fuzz::hash(bytes);
  FUZZ_CHECK(read(bytes, [&] {
               h = h * 6364136223846793005ULL + 1442695040888963407ULL;
               return static_cast<std::size_t>(h >> 59) + 1;
             }) == whole);
  return 0;
}
