#include "amplifier/provider/request_reader.hpp"

#include <algorithm>
#include <cstring>

namespace amplifier::provider {
namespace {

// Walks JSON text just far enough to find where values begin and end. It checks only what it
// needs to find the boundaries; parse_json checks everything, afterwards, on every byte it did
// not see before.
class Splitter {
 public:
  static constexpr int kMaxElementDepth = 24;

  explicit Splitter(std::string_view text) : text_(text) {}

  std::optional<MessageSpans> run() {
    MessageSpans spans;
    bool found = false;
    skip_space();
    if (!take('{')) return std::nullopt;
    skip_space();
    if (take('}')) return std::nullopt;  // no messages: the whole parse says so
    if (!member(spans, found) || !rest_of_object(spans, found)) return std::nullopt;
    return spans;
  }

  // Resumes after the first `count` elements of `known` (views into `known_text`, whose first
  // bytes this text shares up to past the last of them).
  std::optional<MessageSpans> resume(const MessageSpans &known, std::string_view known_text,
                                     std::size_t count) {
    MessageSpans spans;
    spans.array_begin = known.array_begin;
    spans.reused = count;
    for (std::size_t i = 0; i < count; ++i)
      spans.elements.push_back(rebase(known.elements[i], known_text));
    const std::string_view last = spans.elements.back();
    at_ = static_cast<std::size_t>(last.data() + last.size() - text_.data());
    bool found = true;
    if (!rest_of_array(spans) || !rest_of_object(spans, found)) return std::nullopt;
    return spans;
  }

 private:
  std::string_view rebase(std::string_view view, std::string_view base) const {
    return text_.substr(static_cast<std::size_t>(view.data() - base.data()), view.size());
  }

  // At a member's key: past its value.
  bool member(MessageSpans &spans, bool &found) {
    const auto key = string_body();
    // A key spelled with escapes could be "messages" in disguise: read it the old way.
    if (!key || key->find('\\') != std::string_view::npos) return false;
    skip_space();
    if (!take(':')) return false;
    skip_space();
    if (*key != "messages") return value();
    if (found) return false;  // two of them: the whole parse decides which counts
    found = true;
    spans.array_begin = at_;
    if (!take('[')) return false;
    skip_space();
    if (take(']')) {
      spans.array_end = at_;
      return true;
    }
    return element(spans) && rest_of_array(spans);
  }

  // Just past a member's value: the other members, the closing brace, nothing after it.
  bool rest_of_object(MessageSpans &spans, bool &found) {
    for (;;) {
      skip_space();
      if (take('}')) break;
      if (!take(',')) return false;
      skip_space();
      if (!member(spans, found)) return false;
    }
    skip_space();
    return at_ == text_.size() && found;
  }

  bool element(MessageSpans &spans) {
    const std::size_t begin = at_;
    if (!value()) return false;
    spans.elements.push_back(text_.substr(begin, at_ - begin));
    return true;
  }

  // Just past an element: the others, then the closing bracket.
  bool rest_of_array(MessageSpans &spans) {
    for (;;) {
      skip_space();
      if (take(']')) {
        spans.array_end = at_;
        return true;
      }
      if (!take(',')) return false;
      skip_space();
      if (!element(spans)) return false;
    }
  }

  // Past one value: a string, an object or array (brackets counted outside strings), or a
  // literal or number.
  bool value() {
    if (at_ >= text_.size()) return false;
    const char first = text_[at_];
    if (first == '"') return string_body().has_value();
    if (first != '{' && first != '[') return literal();
    int depth = 0;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '"') {
        if (!string_body()) return false;
        continue;
      }
      ++at_;
      // The parser refuses documents nested deeper than its limit (32). An element parsed on
      // its own sits two levels higher than in the request: one near the limit is left to the
      // whole parse, which refuses it as it always did.
      if ((c == '{' || c == '[') && ++depth > kMaxElementDepth) return false;
      if ((c == '}' || c == ']') && --depth == 0) return true;
    }
    return false;
  }

  bool literal() {
    const std::size_t begin = at_;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      const bool part = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' ||
                        c == '+' || c == '.' || c == 'E';
      if (!part) break;
      ++at_;
    }
    return at_ > begin;
  }

  // At a '"': past its closing quote (the next quote after an even run of backslashes); the
  // text between the quotes, escapes as written.
  std::optional<std::string_view> string_body() {
    if (!take('"')) return std::nullopt;
    const std::size_t begin = at_;
    for (;;) {
      const void *quote = std::memchr(text_.data() + at_, '"', text_.size() - at_);
      if (!quote) {
        at_ = text_.size();
        return std::nullopt;
      }
      const auto end = static_cast<std::size_t>(static_cast<const char *>(quote) - text_.data());
      std::size_t backslashes = 0;
      while (end - backslashes > begin && text_[end - backslashes - 1] == '\\') ++backslashes;
      at_ = end + 1;
      if (backslashes % 2 == 0) return text_.substr(begin, end - begin);
    }
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
      ++at_;
  }
  bool take(char c) {
    if (at_ >= text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }

  const std::string_view text_;
  std::size_t at_ = 0;
};

// How many bytes `a` and `b` share from the start: memcmp by blocks (vectorised), then bytes.
std::size_t shared_length(std::string_view a, std::string_view b) {
  constexpr std::size_t kBlock = 256;
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t at = 0;
  while (at + kBlock <= n && std::memcmp(a.data() + at, b.data() + at, kBlock) == 0) at += kBlock;
  while (at < n && a[at] == b[at]) ++at;
  return at;
}

amplifier::ChatRequest read_whole(std::string_view request_json) {
  // The request's document is read only to build the model: from a scratch arena.
  return amplifier::from_json<amplifier::ChatRequest>(
      amplifier::parse_json(request_json, amplifier::scratch_storage(request_json.size())));
}

}  // namespace

std::optional<MessageSpans> split_messages(std::string_view request_json,
                                           const MessageSpans *known, std::string_view known_text) {
  if (known && !known->elements.empty()) {
    const std::size_t shared = shared_length(request_json, known_text);
    // The elements wholly inside the shared beginning: the splitting of that text went the same
    // way. One that ends with a closing bracket, brace or quote ended there whatever follows; a
    // bare literal only ended because of the byte after it, which must be shared too.
    std::size_t count = 0;
    for (const std::string_view element : known->elements) {
      const auto end = static_cast<std::size_t>(element.data() + element.size() - known_text.data());
      const char last = element.back();
      const bool closed = last == '}' || last == ']' || last == '"';
      if (end > shared || (end == shared && !closed)) break;
      ++count;
    }
    if (count > 0) return Splitter(request_json).resume(*known, known_text, count);
  }
  return Splitter(request_json).run();
}

amplifier::ChatRequest RequestReader::read(std::string_view request_json) {
  if (auto request = read_split(request_json)) return std::move(*request);
  // Not split, or a message that does not read on its own: the whole parse gives the request,
  // or the error (with its path) as it always did.
  auto request = read_whole(request_json);
  std::lock_guard lock(mutex_);
  counts_.parsed += request.messages.size();
  return request;
}

std::optional<amplifier::ChatRequest> RequestReader::read_split(std::string_view request_json) {
  std::optional<MessageSpans> spans;
  std::vector<amplifier::Message> messages;
  std::uint64_t read_from;
  {
    std::lock_guard lock(mutex_);
    spans = split_messages(request_json, &previous_.spans, previous_.text);
    if (!spans) return std::nullopt;
    messages.reserve(spans->elements.size());
    messages.assign(previous_.messages.begin(),
                    previous_.messages.begin() + static_cast<std::ptrdiff_t>(spans->reused));
    read_from = generation_;
  }
  // Everything but the messages, parsed as before (model, tools, options, unknown fields).
  std::string rest;
  rest.reserve(request_json.size() - (spans->array_end - spans->array_begin) + 2);
  rest.append(request_json.substr(0, spans->array_begin)).append("[]");
  rest.append(request_json.substr(spans->array_end));
  amplifier::ChatRequest request;
  try {
    request = read_whole(rest);
    for (std::size_t i = spans->reused; i < spans->elements.size(); ++i) {
      const std::string_view text = spans->elements[i];
      messages.push_back(amplifier::from_json<amplifier::Message>(
          amplifier::parse_json(text, amplifier::scratch_storage(text.size()))));
    }
  } catch (const amplifier::ModelError &) {
    // The whole parse reports it: at the offset in the text as sent, with the message's index.
    return std::nullopt;
  }
  remember(request_json, *spans, messages, read_from);
  request.messages = std::move(messages);
  return request;
}

// Keeps this request as the one the next compares with: the messages it took from the previous
// one stay where they are, the new ones are copied in.
void RequestReader::remember(std::string_view request_json, const MessageSpans &spans,
                             const std::vector<amplifier::Message> &messages,
                             std::uint64_t read_from) {
  std::lock_guard lock(mutex_);
  counts_.reused += spans.reused;
  counts_.parsed += messages.size() - spans.reused;
  // Another call replaced the previous request meanwhile: none of it is ours to keep.
  const std::size_t kept = read_from == generation_ ? spans.reused : 0;
  previous_.messages.erase(previous_.messages.begin() + static_cast<std::ptrdiff_t>(kept),
                           previous_.messages.end());
  previous_.messages.insert(previous_.messages.end(),
                            messages.begin() + static_cast<std::ptrdiff_t>(kept), messages.end());
  previous_.text.assign(request_json);
  previous_.spans = spans;
  for (auto &element : previous_.spans.elements)
    element = std::string_view(previous_.text)
                  .substr(static_cast<std::size_t>(element.data() - request_json.data()),
                          element.size());
  ++generation_;
}

RequestReader::Counts RequestReader::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace amplifier::provider
