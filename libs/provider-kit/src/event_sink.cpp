#include "amplifier/provider/event_sink.hpp"

#include "amplifier/stream.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::provider {
namespace json = boost::json;

void EventSink::operator()(const json::object &event) const {
  if (text_) return text_(json::serialize(event));
  if (objects_) objects_(event);
}

void EventSink::block_end(std::size_t index, const amplifier::ContentBlock &block) const {
  if (text_) return text_(stream::block_end_text(index, block));
  if (objects_) objects_(stream::block_end(index, block));
}

}  // namespace amplifier::provider
