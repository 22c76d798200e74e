#include "amplifier/json_text.hpp"

#include "amplifier_sdk_json.hpp"

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <random>

namespace amplifier {
namespace json = boost::json;

namespace {

// Unguessable by a vendor, fixed for the process: "\x01amp-splice-<nonce>-<n>\x01" quotes to
// "\u0001amp-splice-<nonce>-<n>\u0001", which no serialised vendor string can contain unless
// it knows the nonce.
const std::string &marker_nonce() {
  static const std::string nonce = [] {
    std::random_device device;
    const std::uint64_t value = (std::uint64_t{device()} << 32) ^ device();
    std::string hex(16, '0');
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = 0; i < 16; ++i) hex[i] = kHex[(value >> (4 * (15 - i))) & 15];
    return hex;
  }();
  return nonce;
}

std::string marker_text(std::size_t n) {
  return "\x01" "amp-splice-" + marker_nonce() + "-" + std::to_string(n) + "\x01";
}

}  // namespace

std::size_t quoted_size(std::string_view text) noexcept {
  std::size_t size = text.size() + 2;
  for (const char c : text) {
    const char escape = amp::sdk::json::detail::kEscape[static_cast<unsigned char>(c)];
    if (escape != 0) size += escape == 'u' ? 5 : 1;
  }
  return size;
}

std::string SplicedJson::stand_in(std::string_view text) {
  // A short string costs less copied than spliced (and a response of many short blocks would
  // otherwise mean many markers).
  if (mode_ == Mode::plain || text.size() < kMinSplicedBytes) return std::string(text);
  texts_.push_back(text);
  return marker_text(texts_.size() - 1);
}

std::string SplicedJson::render(const json::value &shell,
                                const std::function<std::string()> &slow) const {
  std::string skeleton = json::serialize(shell);
  if (texts_.empty()) return skeleton;
  // One pass over the skeleton: each marker's quoted form is "\u0001amp-splice-NONCE-N\u0001",
  // and every N must be found exactly once.
  std::string prefix;
  amp::sdk::json::append_quoted(prefix, "\x01" "amp-splice-" + marker_nonce() + "-");
  prefix.pop_back();  // the closing quote: the number and "\u0001" follow
  constexpr std::string_view kSuffix = "\\u0001\"";
  struct Place {
    std::size_t at, length, text;
  };
  std::vector<Place> places;
  places.reserve(texts_.size());
  std::vector<bool> seen(texts_.size(), false);
  std::size_t size = skeleton.size();
  for (std::size_t at = skeleton.find(prefix); at != std::string::npos;
       at = skeleton.find(prefix, at + prefix.size())) {
    std::size_t n = 0;
    std::size_t end = at + prefix.size();
    const std::size_t digits = end;
    while (end < skeleton.size() && skeleton[end] >= '0' && skeleton[end] <= '9' && end - digits < 9)
      n = n * 10 + static_cast<std::size_t>(skeleton[end++] - '0');
    if (end == digits || std::string_view(skeleton).substr(end, kSuffix.size()) != kSuffix ||
        n >= texts_.size() || seen[n])
      return slow();
    seen[n] = true;
    const std::size_t length = end + kSuffix.size() - at;
    places.push_back({at, length, n});
    size += quoted_size(texts_[n]) - length;
  }
  if (places.size() != texts_.size()) return slow();
  std::string out;
  out.reserve(size);
  std::size_t from = 0;
  for (const Place &place : places) {
    out.append(skeleton, from, place.at - from);
    amp::sdk::json::append_quoted(out, texts_[place.text]);
    from = place.at + place.length;
  }
  out.append(skeleton, from, std::string::npos);
  return out;
}

namespace detail {

ContentBlock shell_of(const ContentBlock &block, SplicedJson &spliced) {
  if (const auto *text = std::get_if<TextBlock>(&block))
    return TextBlock{spliced.stand_in(text->text), text->visibility, text->extra};
  if (const auto *thinking = std::get_if<ThinkingBlock>(&block))
    return ThinkingBlock{spliced.stand_in(thinking->thinking), thinking->signature,
                         thinking->visibility, thinking->extra};
  if (const auto *redacted = std::get_if<RedactedThinkingBlock>(&block))
    return RedactedThinkingBlock{spliced.stand_in(redacted->data), redacted->visibility,
                                 redacted->extra};
  return block;
}

std::string render_block(const ContentBlock &block,
                         const std::function<json::value(const ContentBlock &)> &document) {
  SplicedJson spliced;
  const ContentBlock shell = detail::shell_of(block, spliced);
  return spliced.render(document(shell), [&] { return json::serialize(document(block)); });
}

}  // namespace detail

std::string to_json_text(const ContentBlock &block) {
  return detail::render_block(block, [](const ContentBlock &b) { return json::value(to_json(b)); });
}

std::string to_json_text(const ChatResponse &response) {
  SplicedJson spliced;
  ChatResponse shell;
  shell.content.reserve(response.content.size());
  for (const auto &block : response.content)
    shell.content.push_back(detail::shell_of(block, spliced));
  shell.tool_calls = response.tool_calls;
  shell.usage = response.usage;
  shell.degradations = response.degradations;
  shell.finish_reason = response.finish_reason;
  shell.metadata = response.metadata;
  shell.extra = response.extra;
  return spliced.render(to_json(shell), [&] { return json::serialize(to_json(response)); });
}

}  // namespace amplifier
