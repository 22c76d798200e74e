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

LentRequest::~LentRequest() {
  if (owner_) owner_->give_back(std::move(request_));
}

LentRequest RequestReader::lend(std::string_view request_json) {
  if (auto request = read_split(request_json)) return LentRequest(*this, std::move(*request));
  // Not split, or a message that does not read on its own: the whole parse gives the request,
  // or the error (with its path) as it always did.
  auto request = read_whole(request_json);
  {
    std::lock_guard lock(mutex_);
    counts_.parsed += request.messages.size();
  }
  return LentRequest(std::move(request));
}

std::optional<amplifier::ChatRequest> RequestReader::read_split(std::string_view request_json) {
  std::optional<MessageSpans> spans;
  std::vector<amplifier::Message> messages;
  amplifier::ChatRequest request;
  {
    std::lock_guard lock(mutex_);
    if (lent_) return std::nullopt;  // another call has the messages now
    spans = split_messages(request_json, &previous_.spans, previous_.text);
    if (!spans) return std::nullopt;
    messages.reserve(spans->elements.size());
    for (std::size_t i = 0; i < spans->reused; ++i)
      messages.push_back(std::move(previous_.messages[i]));
    lent_ = true;  // until they are put back, below or by give_back()
  }
  // The previous request's messages go back where they were, for the next request.
  auto put_back = [&] {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < spans->reused; ++i) previous_.messages[i] = std::move(messages[i]);
    lent_ = false;
  };
  // What previous_ becomes: this request's text, and where its messages lie.
  std::string text;
  MessageSpans kept;
  try {
    // Everything but the messages, parsed as before (model, tools, options, unknown fields).
    std::string rest;
    rest.reserve(request_json.size() - (spans->array_end - spans->array_begin) + 2);
    rest.append(request_json.substr(0, spans->array_begin)).append("[]");
    rest.append(request_json.substr(spans->array_end));
    request = read_whole(rest);
    for (std::size_t i = spans->reused; i < spans->elements.size(); ++i) {
      const std::string_view element = spans->elements[i];
      messages.push_back(amplifier::from_json<amplifier::Message>(
          amplifier::parse_json(element, amplifier::scratch_storage(element.size()))));
    }
    text.assign(request_json);
    kept = *spans;  // views into request_json until rebased below
  } catch (const amplifier::ModelError &) {
    // The whole parse reports it: at the offset in the text as sent, with the message's index.
    put_back();
    return std::nullopt;
  } catch (...) {
    put_back();  // out of memory, say: nothing is left on loan
    throw;
  }
  std::lock_guard lock(mutex_);
  // From here previous_ describes this request; its messages come back with give_back(). (No
  // step below throws: previous_ and its spans stay in step.)
  previous_.messages.clear();
  previous_.text.swap(text);
  for (auto &element : kept.elements)
    element = std::string_view(previous_.text)
                  .substr(static_cast<std::size_t>(element.data() - request_json.data()),
                          element.size());
  previous_.spans = std::move(kept);
  counts_.reused += spans->reused;
  counts_.parsed += spans->elements.size() - spans->reused;
  request.messages = std::move(messages);
  return request;
}

// The messages of the request lent, unchanged (the borrower saw them read-only): they are the
// previous request's now.
void RequestReader::give_back(amplifier::ChatRequest &&request) {
  std::lock_guard lock(mutex_);
  previous_.messages = std::move(request.messages);
  lent_ = false;
}

RequestReader::Counts RequestReader::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace amplifier::provider
