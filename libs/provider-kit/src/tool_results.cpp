#include "amplifier/provider/tool_results.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::provider {

std::string tool_output_text(const boost::json::value &output) {
  if (output.is_string()) return std::string(output.get_string());
  if (output.is_null()) return {};
  return boost::json::serialize(output);
}

void ToolResultSequencer::call_made(std::string call_id, std::string tool_name) {
  open_.push_back(RepairedToolCall{std::move(call_id), std::move(tool_name)});
}

bool ToolResultSequencer::result_given(const std::string &call_id, std::string output,
                                       bool is_error) {
  bool open = false;
  for (const auto &call : open_) open = open || call.tool_call_id == call_id;
  if (!open || given_.contains(call_id)) {
    dropped_.push_back(call_id);
    return false;
  }
  given_.emplace(call_id, Given{std::move(output), is_error});
  return true;
}

std::vector<ToolResultSequencer::Result> ToolResultSequencer::close() {
  std::vector<Result> results;
  results.reserve(open_.size());
  for (RepairedToolCall &call : open_) {
    Result result{call.tool_call_id, call.tool_name, {}, false, false};
    if (auto it = given_.find(call.tool_call_id); it != given_.end()) {
      result.output = std::move(it->second.output);
      result.is_error = it->second.is_error;
    } else {
      result.output = std::string(kMissingToolOutput);
      result.is_error = true;
      result.synthetic = true;
      repaired_.push_back(std::move(call));
    }
    results.push_back(std::move(result));
  }
  open_.clear();
  given_.clear();
  return results;
}

}  // namespace amplifier::provider
