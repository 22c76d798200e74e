// JSON text of the model's values whose strings may be megabytes long (a long answer, its
// thinking), written once, straight into the output.
//
// Why: serialize(to_json(x)) copies every string twice (into the DOM, then into the text), and
// each copy of a 2 MB answer lands in fresh pages. Here the long strings are left out of the
// DOM: a small "shell" holds a marker where each goes, the shell is serialised, and the
// strings are quoted into the final text in place of their markers. The output is byte for byte
// serialize(to_json(x)) (amp::sdk::json::append_quoted writes what Boost.JSON writes).
//
// A marker carries a random per-process nonce, so a vendor's text cannot forge one; should a
// marker not appear exactly once in the serialised shell anyway, the text is built the slow
// way instead.
#pragma once
#include "amplifier/content.hpp"
#include "amplifier/model.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

// Builds one JSON text from a shell and the long strings it stands in for.
class SplicedJson {
 public:
  enum class Mode { splice, plain };
  // `plain`: stand_in returns every text itself (for building the slow path's document with
  // the same code).
  explicit SplicedJson(Mode mode = Mode::splice) : mode_(mode) {}

  // Strings shorter than this go into the shell as they are.
  static constexpr std::size_t kMinSplicedBytes = 4096;

  // What to put in the shell where `text` goes (as a JSON string value): a marker, or `text`
  // itself when it is short. A marked `text` must stay alive and unchanged until render().
  std::string stand_in(std::string_view text);

  // The shell's JSON text with each marker's string value replaced by its text, quoted.
  // `slow` builds the same text without markers; it is used when a marker is not found exactly
  // once.
  std::string render(const boost::json::value &shell,
                     const std::function<std::string()> &slow) const;

 private:
  Mode mode_;
  std::vector<std::string_view> texts_;
};

// The number of bytes `text` takes as a JSON string literal, quotes included.
std::size_t quoted_size(std::string_view text) noexcept;

// serialize(to_json(block)), with the block's long string written once.
std::string to_json_text(const ContentBlock &block);
// serialize(to_json(response)), with the blocks' long strings written once.
std::string to_json_text(const ChatResponse &response);

namespace detail {
// A copy of `block` whose long string (text, thinking or redacted data) is a stand-in of
// `spliced`; other blocks are copied as they are.
ContentBlock shell_of(const ContentBlock &block, SplicedJson &spliced);
// serialize(document(block)), the block's long string written once.
std::string render_block(const ContentBlock &block,
                         const std::function<boost::json::value(const ContentBlock &)> &document);
}  // namespace detail

}  // namespace amplifier
