// ChatRequest -> a GenerateContentRequest:
//   system / developer -> systemInstruction {parts: [{text}]}
//   user               -> {role: user, parts: [{text} | {inlineData: {mimeType, data}}]}
//   assistant          -> {role: model, parts} in block order: text, thought parts (Gemini's
//                         own), functionCall {name, args}; each part's thoughtSignature goes
//                         back on exactly that part, never onto another
//   tool results       -> functionResponse {name, response} parts: all the results of one
//                         model turn in one user content, in call order
//   tools              -> functionDeclarations, the schemas converted (gemini_schema.hpp;
//                         dropped keywords recorded as degradations)
//   limits, sampling, stop, thinkingConfig -> generationConfig; JSON output -> responseMimeType
//   (+ responseSchema).
// Pure: no I/O.
#pragma once
#include "gemini_config.hpp"

#include "amplifier/model.hpp"
#include "amplifier/provider/call_reports.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace gemini {

struct MappedRequest {
  boost::json::object body;
  std::string model;
  bool stream = true;
  bool thinking = false;
  std::vector<amplifier::Degradation> degradations;
  std::vector<amplifier::provider::RepairedToolCall> repaired_tool_calls;
  std::vector<std::string> dropped_tool_results;
};

MappedRequest map_request(const amplifier::ChatRequest &request, const GeminiConfig &config);

}  // namespace gemini
