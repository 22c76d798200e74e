// Tool results the way the vendors want them: each after the call that asked for it, in the
// order the calls were made, exactly one per call. A call whose result never came (an
// interrupted tool run) gets a synthetic one, recorded as a repair; a result for no open call
// (or a second one) is dropped, recorded too. Shared by the providers' request mappings.
#pragma once
#include "amplifier/provider/call_reports.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

// The output a call without a result is given: vendors reject a call that has none.
inline constexpr std::string_view kMissingToolOutput =
    "Tool result missing: the call was interrupted before it produced a result.";

// The text a tool result sends: strings as they are, null as "", anything else as JSON text.
std::string tool_output_text(const boost::json::value &output);

class ToolResultSequencer {
 public:
  struct Result {
    std::string call_id;
    std::string tool_name;
    std::string output;
    bool is_error = false;
    bool synthetic = false;  // the call had no result: kMissingToolOutput stands in
  };

  void call_made(std::string call_id, std::string tool_name);
  // Accepts the result of an open call that has none yet; otherwise drops it (false).
  bool result_given(const std::string &call_id, std::string output, bool is_error = false);
  bool has_open_calls() const noexcept { return !open_.empty(); }
  // The open calls' results in call order, the missing ones synthetic; closes the calls.
  std::vector<Result> close();

  const std::vector<RepairedToolCall> &repaired() const noexcept { return repaired_; }
  const std::vector<std::string> &dropped() const noexcept { return dropped_; }

 private:
  struct Given {
    std::string output;
    bool is_error = false;
  };
  std::vector<RepairedToolCall> open_;
  std::map<std::string, Given, std::less<>> given_;
  std::vector<RepairedToolCall> repaired_;
  std::vector<std::string> dropped_;
};

}  // namespace amplifier::provider
