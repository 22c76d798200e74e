// The frames a module's process sends the host (kernel/src/isolation/wire.hpp): a crashed or
// hostile process may send anything. Invariants: no read past a frame; a frame that decodes
// encodes back to exactly the same bytes; the size check and the decoder agree.
#include "fuzz_support.hpp"

#include "isolation/wire.hpp"

#include <stdexcept>

using namespace amplifier::isolation;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string_view bytes = amp_fuzz::as_text(data, size);
  while (!bytes.empty()) {
    std::size_t frame_size = 0;
    try {
      frame_size = complete_frame_size(bytes);
    } catch (const std::runtime_error &) {
      return 0;  // a frame no peer of ours sends: the channel ends the conversation
    }
    if (frame_size == 0) return 0;  // incomplete: waits for more
    FUZZ_CHECK(frame_size <= bytes.size());
    const std::string_view frame_bytes = bytes.substr(0, frame_size);
    Frame frame;
    try {
      frame = decode_frame(frame_bytes);
    } catch (const std::runtime_error &) {
      return 0;
    }
    Message message(frame.fn, {}, frame.a, frame.b, frame.c);
    for (std::size_t i = 0; i < frame.string_count; ++i) {
      const std::string_view s = frame.strings[i];
      FUZZ_CHECK(s.data() >= frame_bytes.data() &&
                 s.data() + s.size() <= frame_bytes.data() + frame_bytes.size());
      message.strings[message.string_count++] = s;
    }
    std::string encoded;
    append_frame(encoded, frame.kind, frame.tag, frame.order, message);
    // Bytes past the last string are not part of any field: the decoder ignores them, so the
    // re-encoding is the frame up to there.
    FUZZ_CHECK(frame_bytes.substr(4).starts_with(std::string_view(encoded).substr(4)));
    bytes.remove_prefix(frame_size);
  }
  return 0;
}
