// Where a stream translator's JSON events go. Most events are small objects; a block's end
// carries the whole block, which for a long answer is megabytes, so it is written straight to
// JSON text once (stream::block_end_text) rather than built as a DOM and serialised.
//
// The host's sink (HttpProviderCall::stream_sinks) takes text; a sink made from a callable of
// `const boost::json::object &` (tests, adapters) gets every event as an object.
#pragma once
#include "amplifier/model.hpp"

#include <boost/json/object.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>

namespace amplifier::provider {

class EventSink {
 public:
  using TextSink = std::function<void(std::string_view event_json)>;
  using ObjectSink = std::function<void(const boost::json::object &event)>;

  EventSink() = default;
  template <class F>
    requires std::invocable<F &, const boost::json::object &>
  EventSink(F sink) : objects_(std::move(sink)) {}  // NOLINT: implicit, as std::function is

  static EventSink of_text(TextSink sink) {
    EventSink out;
    out.text_ = std::move(sink);
    return out;
  }

  // One event as an object.
  void operator()(const boost::json::object &event) const;
  // {"type":"content_block_end","index":N,"block":block}, the block's text written once.
  void block_end(std::size_t index, const amplifier::ContentBlock &block) const;

  explicit operator bool() const noexcept { return text_ || objects_; }

 private:
  TextSink text_;
  ObjectSink objects_;
};

}  // namespace amplifier::provider
