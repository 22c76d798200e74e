// ChatRequest -> the JSON body of POST {base_url}/chat/completions, in the shape every
// OpenAI-compatible server accepts:
//   system and developer messages -> {role: system} (servers that know no developer role)
//   user text / images           -> a string, or text and image_url parts (data URLs)
//   assistant                    -> {content, tool_calls: [{id, type: function, function:
//                                   {name, arguments as JSON text}}]}, and its thinking back in
//                                   the field the server sent it in (reasoning_content or
//                                   reasoning) when it came from this kind of server
//   tool results                 -> {role: tool, tool_call_id, content}, in call order
//   tools                        -> {type: function, function: {name, description, parameters}}
// plus limits, sampling, stop, response_format, reasoning_effort, stream_options:
// {include_usage: true}, and the config's extra_body merged last. What cannot be sent
// (another vendor's signed thinking or reasoning items) is a degradation. Pure: no I/O.
#pragma once
#include "chat_config.hpp"

#include "amplifier/model.hpp"
#include "amplifier/provider/call_reports.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace chat_completions {

struct MappedChat {
  boost::json::object body;
  std::string model;
  bool stream = true;
  std::vector<amplifier::Degradation> degradations;
  std::vector<amplifier::provider::RepairedToolCall> repaired_tool_calls;
  std::vector<std::string> dropped_tool_results;
};

MappedChat map_request(const amplifier::ChatRequest &request, const ChatConfig &config);

}  // namespace chat_completions
