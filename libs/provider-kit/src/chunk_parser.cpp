#include "amplifier/provider/chunk_parser.hpp"

namespace amplifier::provider {

const boost::json::value *ChunkParser::parse(std::string_view text, boost::json::error_code &ec) {
  document_.reset();  // the last document goes before the memory it lives in is reused
  parser_.reset();
  resource_.emplace(buffer_, sizeof buffer_);
  parser_.reset(boost::json::storage_ptr(&*resource_));
  parser_.write(text.data(), text.size(), ec);
  if (ec) return nullptr;
  return &document_.emplace(parser_.release());
}

}  // namespace amplifier::provider
