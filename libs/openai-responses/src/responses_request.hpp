// ChatRequest -> the JSON body of POST /responses (OpenAI and Azure alike):
//   system messages        -> `instructions` (joined by blank lines)
//   developer messages     -> {role: developer} input messages
//   user / assistant text  -> input_text / output_text parts; images -> input_image (data URL)
//   reasoning blocks       -> reasoning items {id, summary, encrypted_content} re-sent unchanged,
//                             where they stood (before the function_call they preceded)
//   tool calls             -> function_call items {call_id, name, arguments as JSON text}
//   tool results           -> function_call_output items {call_id, output}, in call order
//   tools                  -> {type: function, name, description, parameters, strict: false}
// plus the limits, sampling, reasoning ({effort, summary}), store, and with store: false
// include: ["reasoning.encrypted_content"] so reasoning survives without server-side state.
// What cannot be sent (another vendor's thinking, stop sequences) is left out and recorded as
// a degradation. Pure: no I/O.
#pragma once
#include "responses_config.hpp"

#include "amplifier/model.hpp"
#include "amplifier/provider/call_reports.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tool_results.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace openai_responses {

using amplifier::provider::kMissingToolOutput;

using amplifier::provider::RepairedToolCall;

struct MappedRequest {
  boost::json::object body;
  std::string model;      // as the conversation names it
  std::string api_model;  // as the API gets it (the deployment on Azure)
  bool stream = true;
  bool reasoning = false;  // a reasoning effort was sent
  std::vector<amplifier::Degradation> degradations;
  std::vector<RepairedToolCall> repaired_tool_calls;
  std::vector<std::string> dropped_tool_results;  // call ids with no call before them
};

MappedRequest map_request(const amplifier::ChatRequest &request, const ResponsesConfig &config);

// The conversation alone, as Responses input items (exposed for tests).
struct InputMapping {
  std::string instructions;
  boost::json::array input;
  std::vector<RepairedToolCall> repaired_tool_calls;
  std::vector<std::string> dropped_tool_results;
};
InputMapping map_input(const std::vector<amplifier::Message> &messages,
                       amplifier::provider::DegradationLog &degradations);

}  // namespace openai_responses
