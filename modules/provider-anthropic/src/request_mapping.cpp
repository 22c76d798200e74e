#include "request_mapping.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/tools.hpp"

#include "prompt_caching.hpp"

#include <boost/json/serialize.hpp>

#include <sstream>

namespace provider_anthropic {

namespace json = boost::json;
using amplifier::ChatRequest;

namespace {

using amplifier::module_support::string_at;

// With thinking on, the API accepts top_p only in this range (and temperature only at 1).
constexpr double kMinTopPWithThinking = 0.95;

std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

json::object tool_definition(const amplifier::ToolSpec &spec) {
  json::object tool{{"name", spec.name}};
  if (spec.description && !spec.description->empty()) tool["description"] = *spec.description;
  tool["input_schema"] = amplifier::provider::parameters_of(spec);
  return tool;
}

// The Anthropic tool_choice, or nullopt for the API default (auto).
std::optional<json::object> tool_choice(const json::value &choice, bool thinking,
                                        DegradationLog &degradations) {
  using Mode = amplifier::provider::ToolChoice::Mode;
  const auto read = amplifier::provider::read_tool_choice(choice, degradations);
  if (!read) return std::nullopt;
  if (read->mode == Mode::automatic) return json::object{{"type", "auto"}};
  if (read->mode == Mode::none) return json::object{{"type", "none"}};
  if (thinking) {
    degradations.note("tool_choice",
                      "with extended thinking Anthropic only accepts tool_choice auto or none",
                      "auto");
    return json::object{{"type", "auto"}};
  }
  if (read->mode == Mode::named) return json::object{{"type", "tool"}, {"name", read->name}};
  return json::object{{"type", "any"}};
}

std::optional<json::array> stop_sequences(const json::value &stop) {
  json::array out;
  if (stop.is_string()) {
    if (!stop.get_string().empty()) out.push_back(stop);
  } else if (stop.is_array()) {
    for (const auto &item : stop.get_array())
      if (item.is_string() && !item.get_string().empty()) out.push_back(item);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

void note_response_format(const json::value &format, DegradationLog &degradations) {
  std::string_view type;
  if (format.is_string()) type = format.get_string();
  if (format.is_object()) type = string_at(format.get_object(), "type");
  if (type.empty() || type == "text") return;
  degradations.note("response_format",
                    "the Anthropic Messages API has no " + std::string(type) +
                        " response mode, so the output is not constrained to the requested format",
                    "unconstrained text");
}

// Temperature and top_p as the API allows them: with thinking only temperature 1 (so it is
// left unset) and top_p in [0.95, 1]; without thinking, recent models refuse both together.
void add_sampling(json::object &body, const ChatRequest &request, const AnthropicConfig &config,
                  bool thinking, DegradationLog &degradations) {
  const std::optional<double> temperature =
      request.temperature ? request.temperature : config.temperature;
  std::optional<double> top_p = request.top_p;
  if (thinking) {
    if (temperature && *temperature != 1.0) {
      degradations.note("temperature",
                        "extended thinking requires temperature 1; the requested " +
                            number_text(*temperature) + " was not sent",
                        "the API default (1)");
    }
    if (top_p && (*top_p < kMinTopPWithThinking || *top_p > 1.0)) {
      degradations.note("top_p",
                        "extended thinking accepts top_p only between 0.95 and 1; the requested " +
                            number_text(*top_p) + " was not sent",
                        "the API default");
      top_p.reset();
    }
    if (top_p) body["top_p"] = *top_p;
    return;
  }
  if (temperature) body["temperature"] = *temperature;
  if (top_p && temperature) {
    degradations.note("top_p",
                      "Claude models accept only one of temperature and top_p; top_p " +
                          number_text(*top_p) + " was not sent",
                      "temperature alone");
    return;
  }
  if (top_p) body["top_p"] = *top_p;
}

}  // namespace

std::int64_t budget_for_effort(std::string_view effort) {
  if (effort == "minimal") return kMinThinkingBudget;
  if (effort == "low") return 4096;
  if (effort == "high") return 32000;
  return 10000;  // medium, and the default when thinking is on without an effort
}

ThinkingSettings thinking_settings(const ChatRequest &request, const AnthropicConfig &config) {
  if (request.reasoning_effort && is_known_reasoning_effort(*request.reasoning_effort)) {
    if (*request.reasoning_effort == "none") return {};
    return {true, budget_for_effort(*request.reasoning_effort)};
  }
  const bool effort_on = config.reasoning_effort && *config.reasoning_effort != "none";
  if (!config.extended_thinking && !effort_on) return {};
  if (config.thinking_budget_tokens) return {true, *config.thinking_budget_tokens};
  return {true, budget_for_effort(effort_on ? *config.reasoning_effort : "medium")};
}

MappedRequest map_request(const ChatRequest &request, const AnthropicConfig &config) {
  DegradationLog degradations;
  MappedRequest mapped;
  mapped.model = request.model.value_or(config.default_model);
  mapped.stream = request.stream.value_or(true);
  mapped.thinking = thinking_settings(request, config);
  if (request.reasoning_effort && !is_known_reasoning_effort(*request.reasoning_effort)) {
    degradations.note(
        "reasoning_effort", "reasoning_effort '" + *request.reasoning_effort + "' is not known",
        mapped.thinking.enabled ? "the configured thinking budget" : "no extended thinking");
  }

  ConversationMapping conversation = map_conversation(request.messages, degradations);
  mapped.repaired_tool_calls = std::move(conversation.repaired_tool_calls);
  mapped.dropped_tool_results = std::move(conversation.dropped_tool_results);

  json::object &body = mapped.body;
  body["model"] = mapped.model;
  std::int64_t max_tokens = request.max_output_tokens.value_or(config.max_tokens);
  // The budget is part of max_tokens, so an answer needs room beyond it.
  if (mapped.thinking.enabled && max_tokens <= mapped.thinking.budget_tokens)
    max_tokens += mapped.thinking.budget_tokens;
  body["max_tokens"] = max_tokens;
  if (conversation.system) body["system"] = *conversation.system;
  body["messages"] = std::move(conversation.messages);

  const bool has_tools = request.tools && !request.tools->empty();
  if (has_tools) {
    json::array tools;
    for (const auto &spec : *request.tools) tools.push_back(tool_definition(spec));
    body["tools"] = std::move(tools);
    if (request.tool_choice) {
      if (auto choice = tool_choice(*request.tool_choice, mapped.thinking.enabled, degradations))
        body["tool_choice"] = std::move(*choice);
    }
  }
  if (mapped.thinking.enabled)
    body["thinking"] =
        json::object{{"type", "enabled"}, {"budget_tokens", mapped.thinking.budget_tokens}};
  add_sampling(body, request, config, mapped.thinking.enabled, degradations);
  if (request.stop) {
    if (auto sequences = stop_sequences(*request.stop))
      body["stop_sequences"] = std::move(*sequences);
  }
  if (request.response_format) note_response_format(*request.response_format, degradations);
  if (config.enable_prompt_caching) apply_cache_breakpoints(body, config.cache_ttl);
  strip_ephemeral_marks(body);
  body["stream"] = mapped.stream;
  mapped.degradations = degradations.take();
  return mapped;
}

}  // namespace provider_anthropic
