// ChatRequest -> the body of POST {host}/api/chat, with only the fields Ollama's server takes:
//   system / developer    -> {role: system}
//   user                  -> {role: user, content, images: [base64]}
//   assistant             -> {content, thinking (Ollama's own, sent back), tool_calls:
//                            [{function: {name, arguments as a JSON object}}]}
//   tool results          -> {role: tool, content, tool_name}, in call order
//   tools                 -> {type: function, function: {name, description, parameters}}
//   limits and sampling   -> options {num_predict, temperature, top_p, stop} over the
//                            config's options; think, keep_alive, stream, format.
// What cannot be sent (image URLs, another vendor's thinking) is a degradation. Pure: no I/O.
#pragma once
#include "ollama_config.hpp"

#include "amplifier/model.hpp"
#include "amplifier/provider/call_reports.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace ollama {

struct MappedChat {
  boost::json::object body;
  std::string model;
  bool stream = true;
  bool thinking = false;  // think: true was sent
  std::vector<amplifier::Degradation> degradations;
  std::vector<amplifier::provider::RepairedToolCall> repaired_tool_calls;
  std::vector<std::string> dropped_tool_results;
};

MappedChat map_request(const amplifier::ChatRequest &request, const OllamaConfig &config);

}  // namespace ollama
