// Parses a stream's chunks (one small JSON document each) into a DOM without a heap allocation
// per chunk: the document lives in a buffer the parser reuses, so it is valid only until the
// next parse. For vendors whose chunks nest the deltas in arrays, which JsonFieldReader does
// not reach.
//
// THREADS: one parser per stream.
#pragma once
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parser.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

namespace amplifier::provider {

class ChunkParser {
 public:
  // The document, or nullptr with `ec` set. Valid until the next call.
  const boost::json::value *parse(std::string_view text, boost::json::error_code &ec);

 private:
  unsigned char buffer_[4096];
  std::optional<boost::json::monotonic_resource> resource_;
  boost::json::parser parser_;
  // Optional so that it is constructed in place, keeping the buffer's storage (assigning a
  // value would copy it to the heap).
  std::optional<boost::json::value> document_;
};

}  // namespace amplifier::provider
