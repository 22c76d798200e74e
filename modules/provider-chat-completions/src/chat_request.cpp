#include "chat_request.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tools.hpp"
#include "amplifier/provider/conversation.hpp"

#include <boost/json/serialize.hpp>

namespace chat_completions {

namespace json = boost::json;
using amplifier::ContentBlock;
using amplifier::Message;
using amplifier::Role;
using amplifier::module_support::string_at;
using amplifier::provider::DegradationLog;
using amplifier::provider::ToolResultSequencer;

namespace {

class MessageMapper final : public amplifier::provider::ConversationWalker {
 public:
  explicit MessageMapper(DegradationLog &degradations)
      : ConversationWalker(degradations, "Chat Completions") {}

  json::array out;

 private:
  // Servers that know no developer role take it as system.
  void on_system(const std::string &text) override {
    close_tool_calls();
    out.push_back(json::object{{"role", "system"}, {"content", text}});
  }

  void on_user(const Message &message) override {
    if (const auto *text = std::get_if<std::string>(&message.content)) {
      out.push_back(json::object{{"role", "user"}, {"content", *text}});
      return;
    }
    json::array parts;
    bool only_text = true;
    for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
      if (amplifier::block_as<amplifier::ToolResultBlock>(block)) continue;
      if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
        parts.push_back(json::object{{"type", "text"}, {"text", t->text}});
      } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
        if (auto url = amplifier::provider::image_data_url(image->source)) {
          parts.push_back(
              json::object{{"type", "image_url"}, {"image_url", json::object{{"url", *url}}}});
          only_text = false;
        } else {
          degradations().note("image", "an image source that is neither base64 nor a URL",
                              "the image was left out");
        }
      } else {
        drop_block(block, "user");
      }
    }
    if (parts.empty()) return;
    // Text alone goes as one string: every server takes that, not every one takes parts.
    if (only_text) {
      std::string text;
      for (const auto &part : parts) text += part.at("text").as_string();
      out.push_back(json::object{{"role", "user"}, {"content", text}});
    } else {
      out.push_back(json::object{{"role", "user"}, {"content", std::move(parts)}});
    }
  }

  void on_assistant(const Message &message) override {
    json::object turn{{"role", "assistant"}};
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      turn["content"] = *plain;
      out.push_back(std::move(turn));
      return;
    }
    std::string text, reasoning, reasoning_field;
    json::array calls;
    for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
      if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
        text += t->text;
      } else if (const auto *thinking = amplifier::block_as<amplifier::ThinkingBlock>(block)) {
        const auto field = string_at(thinking->extra, amplifier::ThinkingBlock::kReasoningFieldKey);
        if (field.empty()) {
          degradations().note("thinking_block",
                              "a thinking block from another provider cannot be sent to a Chat "
                              "Completions server",
                              "the thinking block was left out");
          continue;
        }
        reasoning += thinking->thinking;
        reasoning_field = field;
      } else if (const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block)) {
        calls.push_back(function_call(*call));
        call_made(*call);
      } else {
        drop_block(block, "assistant");
      }
    }
    // Reasoning goes back in the field the server sent it in: servers that need it within a
    // tool loop (DeepSeek, vLLM's reasoning parsers) read it there.
    if (!reasoning.empty()) turn[reasoning_field] = reasoning;
    turn["content"] = text.empty() && !calls.empty() ? json::value(nullptr) : json::value(text);
    if (!calls.empty()) turn["tool_calls"] = std::move(calls);
    out.push_back(std::move(turn));
  }

  void on_results(std::vector<ToolResultSequencer::Result> results) override {
    for (auto &result : results)
      out.push_back(json::object{{"role", "tool"},
                                 {"tool_call_id", result.call_id},
                                 {"content", std::move(result.output)}});
  }

  static json::object function_call(const amplifier::ToolCallBlock &call) {
    // The arguments as the model wrote them when they were kept, else the input as JSON text.
    const json::value *raw = call.extra.if_contains("arguments");
    std::string arguments =
        raw && raw->is_string() ? std::string(raw->get_string()) : json::serialize(call.input);
    return json::object{
        {"id", call.id},
        {"type", "function"},
        {"function", json::object{{"name", call.name}, {"arguments", std::move(arguments)}}}};
  }
};

json::object tool_definition(const amplifier::ToolSpec &spec) {
  return json::object{{"type", "function"},
                      {"function", amplifier::provider::function_declaration(spec)}};
}

// The Chat Completions tool_choice, or nullopt for the server's default (auto).
std::optional<json::value> tool_choice(const json::value &choice, DegradationLog &degradations) {
  return amplifier::provider::openai_tool_choice(choice, degradations, [](std::string_view name) {
    return json::value(
        json::object{{"type", "function"}, {"function", json::object{{"name", name}}}});
  });
}

}  // namespace

MappedChat map_request(const amplifier::ChatRequest &request, const ChatConfig &config) {
  DegradationLog degradations;
  MappedChat mapped;
  mapped.model = request.model && !request.model->empty() ? *request.model : config.default_model;
  mapped.stream = request.stream.value_or(true);

  MessageMapper mapper(degradations);
  mapper.walk(request.messages);
  json::object &body = mapped.body;
  body["model"] = mapped.model;
  body["messages"] = std::move(mapper.out);
  mapped.repaired_tool_calls = mapper.repaired_tool_calls();
  mapped.dropped_tool_results = mapper.dropped_tool_results();
  if (request.tools && !request.tools->empty()) {
    json::array tools;
    for (const auto &spec : *request.tools) tools.push_back(tool_definition(spec));
    body["tools"] = std::move(tools);
    if (request.tool_choice)
      if (auto choice = tool_choice(*request.tool_choice, degradations))
        body["tool_choice"] = std::move(*choice);
  }
  if (auto limit = request.max_output_tokens ? request.max_output_tokens : config.max_tokens)
    body["max_tokens"] = *limit;
  if (auto temperature = request.temperature ? request.temperature : config.temperature)
    body["temperature"] = *temperature;
  if (request.top_p) body["top_p"] = *request.top_p;
  if (request.stop) body["stop"] = *request.stop;
  // A bare "text" is the default; objects (json_object, json_schema) go as the API has them.
  if (request.response_format && request.response_format->is_object())
    body["response_format"] = *request.response_format;
  if (request.reasoning_effort) body["reasoning_effort"] = *request.reasoning_effort;
  body["stream"] = mapped.stream;
  if (mapped.stream) body["stream_options"] = json::object{{"include_usage", true}};
  for (const auto &field : config.extra_body) body[field.key()] = field.value();
  mapped.degradations = degradations.take();
  return mapped;
}

}  // namespace chat_completions
