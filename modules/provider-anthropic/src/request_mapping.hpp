// ChatRequest -> the JSON body of POST /v1/messages: model, limits, system, messages, tools,
// tool_choice, extended thinking, sampling, stop sequences, prompt-caching breakpoints.
// Pure: no I/O, so every rule is unit-tested without a network.
#pragma once
#include "anthropic_config.hpp"
#include "message_mapping.hpp"

#include "amplifier/model.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace provider_anthropic {

struct ThinkingSettings {
  bool enabled = false;
  std::int64_t budget_tokens = 0;
};

// Whether extended thinking is on for this request and with what budget: the request's
// reasoning_effort wins ("none" switches it off), then the config's thinking_budget_tokens,
// reasoning_effort and extended_thinking.
ThinkingSettings thinking_settings(const amplifier::ChatRequest &request,
                                   const AnthropicConfig &config);

// The thinking budget an effort stands for (minimal 1024, low 4096, medium 10000, high 32000).
std::int64_t budget_for_effort(std::string_view effort);

struct MappedRequest {
  boost::json::object body;
  std::string model;
  bool stream = true;
  ThinkingSettings thinking;
  std::vector<amplifier::Degradation> degradations;
  std::vector<RepairedToolCall> repaired_tool_calls;
  std::vector<std::string> dropped_tool_results;
};

MappedRequest map_request(const amplifier::ChatRequest &request, const AnthropicConfig &config);

}  // namespace provider_anthropic
