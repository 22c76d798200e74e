#include "amplifier/model_base.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/stream_parser.hpp>
#include <boost/json/value.hpp>

namespace amplifier {
namespace {
std::string describe(const std::string &path, const std::string &problem) {
  return path.empty() ? problem : path + ": " + problem;
}
}  // namespace

ModelError::ModelError(std::string path, std::string problem)
    : std::invalid_argument(describe(path, problem)),
      path_(std::move(path)),
      problem_(std::move(problem)) {}

boost::json::value parse_json(std::string_view text) {
  return parse_json(text, boost::json::storage_ptr());
}

boost::json::storage_ptr scratch_storage(std::size_t text_size) {
  return boost::json::make_shared_resource<boost::json::monotonic_resource>(text_size + 1024);
}

boost::json::value parse_json(std::string_view text, boost::json::storage_ptr storage) {
  boost::json::stream_parser parser;
  parser.reset(std::move(storage));  // where the value's memory comes from
  boost::json::error_code error;
  // The consumed count tells where the text went wrong, which is what a reader needs.
  const std::size_t consumed = parser.write(text.data(), text.size(), error);
  if (!error) parser.finish(error);
  if (error)
    throw ModelError({}, "invalid JSON at offset " + std::to_string(consumed) + ": " +
                             error.message());
  return parser.release();
}

}  // namespace amplifier
