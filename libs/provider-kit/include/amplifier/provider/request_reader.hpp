// Reads the ChatRequest of each call a provider instance gets, parsing only the messages that
// are new since its previous request.
//
// Why: an agent loop sends the whole conversation on every call, so parsing it whole made a
// tool turn cost in proportion to everything said so far (at 150 turns, reading the request was
// a third of the run). The next request repeats the previous one's text up to where the
// conversation grew: the messages lying wholly within that shared beginning are the same bytes,
// so they are the same messages, copied from the previous read instead of parsed again.
//
// The result is exactly from_json<ChatRequest>(parse_json(text)): the same request, or the same
// ModelError. The fast path only finds where each message's text begins and ends; the text
// around the messages and every new message are parsed by parse_json as before. Anything the
// splitter does not recognise (a key with escapes, two `messages`, a message that does not parse
// on its own) is read the old way, whole.
//
// The messages themselves are lent, not copied: the request a provider reads is a LentRequest,
// whose messages return to the reader when the provider's start is done with it.
//
// THREADS: lend() is thread-safe. While one call's request is out on loan, a call in parallel on
// the same instance reads its request the old way.
#pragma once
#include "amplifier/model.hpp"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

// Where the elements of a request's top-level `messages` array lie in its text.
struct MessageSpans {
  std::size_t array_begin = 0;  // at its '['
  std::size_t array_end = 0;    // just past its ']'
  std::vector<std::string_view> elements;
  std::size_t reused = 0;  // how many of the first elements were taken from `known`
};

// The spans, or nullopt when the text is not a plain JSON object with one `messages` array
// (the caller then parses it whole, which also reports what is wrong with it). With `known`, the
// spans of an earlier text `known_text` (its views point into it): the elements lying wholly
// within the beginning both texts share are taken as they are, and the splitting resumes after
// them.
std::optional<MessageSpans> split_messages(std::string_view request_json,
                                           const MessageSpans *known = nullptr,
                                           std::string_view known_text = {});

class RequestReader;

// A call's request as the reader lends it, for as long as this object lives: read-only, so that
// its messages go back to the reader unchanged when it ends and the next request takes them
// without a copy. It can be neither copied nor moved: it lives in the scope that asked for it (a
// provider's start, which maps the request to its vendor's body and lets it go). A provider that
// keeps the request longer copies it.
class LentRequest {
 public:
  LentRequest() = default;  // no request: the call has ended already
  explicit LentRequest(amplifier::ChatRequest request)  // not the reader's: owned
      : present_(true), request_(std::move(request)) {}
  ~LentRequest();
  LentRequest(const LentRequest &) = delete;
  LentRequest &operator=(const LentRequest &) = delete;

  explicit operator bool() const { return present_; }
  const amplifier::ChatRequest &operator*() const { return request_; }
  const amplifier::ChatRequest *operator->() const { return &request_; }

 private:
  friend class RequestReader;
  LentRequest(RequestReader &owner, amplifier::ChatRequest request)
      : owner_(&owner), present_(true), request_(std::move(request)) {}

  RequestReader *owner_ = nullptr;
  bool present_ = false;
  amplifier::ChatRequest request_;
};

class RequestReader {
 public:
  // Throws ModelError exactly as from_json<ChatRequest>(parse_json(request_json)) would. The
  // reader must outlive what it lends.
  LentRequest lend(std::string_view request_json);

  struct Counts {
    std::size_t reused = 0;  // messages taken from the previous read
    std::size_t parsed = 0;  // messages parsed (new, or read the old way)
  };
  Counts counts() const;

 private:
  friend class LentRequest;

  // The last request read on the fast path: its text, where its messages lie, and them (out on
  // loan while `lent_`).
  struct Previous {
    std::string text;
    MessageSpans spans;  // views into `text`
    std::vector<amplifier::Message> messages;
  };
  std::optional<amplifier::ChatRequest> read_split(std::string_view request_json);
  void give_back(amplifier::ChatRequest &&request);

  mutable std::mutex mutex_;
  Previous previous_;
  // previous_.messages are out: other calls read the old way and leave previous_ alone, so
  // what comes back is exactly what previous_ describes.
  bool lent_ = false;
  Counts counts_;
};

}  // namespace amplifier::provider
