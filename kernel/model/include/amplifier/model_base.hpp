// The pieces every model header shares: the parse error and the from_json entry point.
#pragma once
#include <boost/json/fwd.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace amplifier {

// Raised on malformed model JSON and on invalid conversations or streams. `what()` reads
// "<path>: <problem>", e.g. "messages[3].content[1]: tool_call block has no id"; the path is
// empty when the problem concerns the document as a whole.
// An invalid_argument, so module boundaries can map it to AMP_INVALID_ARGUMENT.
class ModelError : public std::invalid_argument {
 public:
  ModelError(std::string path, std::string problem);

  const std::string &path() const noexcept { return path_; }
  const std::string &problem() const noexcept { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// Parses a model type from JSON: `from_json<ChatRequest>(value)`. Specialised for every model
// type beside its declaration; any other T is a compile error rather than a link error.
// Throws ModelError naming the path of the first problem.
template <class T>
T from_json(const boost::json::value &json) = delete;

// Parses JSON text; throws ModelError ("invalid JSON at offset N: ...") instead of a
// system_error, so callers handle one exception type for every malformed payload.
boost::json::value parse_json(std::string_view text);
// The same, the document's memory from `storage`. With a monotonic resource a document read only
// to build a model (every from_json keeps owned copies, never the document's own memory) is
// allocated in a few blocks and let go at once instead of node by node.
boost::json::value parse_json(std::string_view text, boost::json::storage_ptr storage);
// A storage for such a document: a monotonic resource whose first block fits `text_size` bytes
// of JSON, owned by the storage_ptr.
boost::json::storage_ptr scratch_storage(std::size_t text_size);

}  // namespace amplifier
