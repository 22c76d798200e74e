#include "amplifier/provider/event_sink.hpp"

#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::provider {
namespace json = boost::json;

void EventSink::operator()(const json::object &event) const {
  if (text_) return text_(json::serialize(event));
  if (objects_) objects_(event);
}

void EventSink::text(std::string_view event_json) const {
  if (text_) return text_(event_json);
  if (objects_) objects_(json::parse(event_json).as_object());
}

void EventSink::block_end(std::size_t index, const amplifier::ContentBlock &block) const {
  if (text_) return text_(stream::block_end_text(index, block));
  if (objects_) objects_(stream::block_end(index, block));
}

}  // namespace amplifier::provider
