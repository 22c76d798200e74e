#include "ollama_request.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tools.hpp"
#include "amplifier/provider/conversation.hpp"

namespace ollama {

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
      : ConversationWalker(degradations, "Ollama") {}

  json::array out;

 private:
  void on_system(const std::string &text) override {
    close_tool_calls();
    out.push_back(json::object{{"role", "system"}, {"content", text}});
  }

  void on_user(const Message &message) override {
    std::string text;
    json::array images;
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      text = *plain;
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (amplifier::block_as<amplifier::ToolResultBlock>(block)) continue;
        if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
          text += t->text;
        } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
          // Ollama takes images as base64 only.
          if (string_at(image->source, "type") == "base64" &&
              !string_at(image->source, "data").empty())
            images.push_back(json::string(string_at(image->source, "data")));
          else
            degradations().note("image", "Ollama takes images as base64 data, not URLs",
                                "the image was left out");
        } else {
          drop_block(block, "user");
        }
      }
    }
    if (text.empty() && images.empty()) return;
    json::object turn{{"role", "user"}, {"content", text}};
    if (!images.empty()) turn["images"] = std::move(images);
    out.push_back(std::move(turn));
  }

  void on_assistant(const Message &message) override {
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      out.push_back(json::object{{"role", "assistant"}, {"content", *plain}});
      return;
    }
    std::string text, thinking;
    json::array calls;
    for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
      if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
        text += t->text;
      } else if (const auto *th = amplifier::block_as<amplifier::ThinkingBlock>(block)) {
        if (string_at(th->extra, amplifier::ThinkingBlock::kReasoningFieldKey) == kReasoningField) {
          thinking += th->thinking;
        } else {
          degradations().note("thinking_block",
                              "a thinking block from another provider cannot be sent to Ollama",
                              "the thinking block was left out");
        }
      } else if (const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block)) {
        // Arguments go as an object, never as text.
        calls.push_back(json::object{
            {"function", json::object{{"name", call->name}, {"arguments", call->input}}}});
        call_made(*call);
      } else {
        drop_block(block, "assistant");
      }
    }
    json::object turn{{"role", "assistant"}, {"content", text}};
    if (!thinking.empty()) turn["thinking"] = thinking;
    if (!calls.empty()) turn["tool_calls"] = std::move(calls);
    out.push_back(std::move(turn));
  }

  void on_results(std::vector<ToolResultSequencer::Result> results) override {
    for (auto &result : results)
      out.push_back(json::object{{"role", "tool"},
                                 {"content", std::move(result.output)},
                                 {"tool_name", std::move(result.tool_name)}});
  }
};

json::object tool_definition(const amplifier::ToolSpec &spec) {
  return json::object{{"type", "function"},
                      {"function", amplifier::provider::function_declaration(spec)}};
}

}  // namespace

MappedChat map_request(const amplifier::ChatRequest &request, const OllamaConfig &config) {
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
  }
  if (request.tool_choice)
    degradations.note("tool_choice", "Ollama has no tool_choice", "the model chooses");
  json::object options = config.options;
  if (request.max_output_tokens) options["num_predict"] = *request.max_output_tokens;
  if (request.temperature) options["temperature"] = *request.temperature;
  if (request.top_p) options["top_p"] = *request.top_p;
  if (request.stop)
    options["stop"] =
        request.stop->is_string() ? json::value(json::array{*request.stop}) : *request.stop;
  if (!options.empty()) body["options"] = std::move(options);
  mapped.thinking =
      config.enable_thinking || (request.reasoning_effort && *request.reasoning_effort != "none");
  if (mapped.thinking) body["think"] = true;
  if (!config.keep_alive.is_null()) body["keep_alive"] = config.keep_alive;
  // json_object -> "json"; a json_schema's schema -> format as the schema itself.
  if (request.response_format && request.response_format->is_object()) {
    const json::object &format = request.response_format->get_object();
    const std::string_view type = string_at(format, "type");
    if (type == "json_object") {
      body["format"] = "json";
    } else if (type == "json_schema") {
      const json::value *nested = format.if_contains("json_schema");
      const json::object &holder = nested && nested->is_object() ? nested->get_object() : format;
      if (const json::value *schema = holder.if_contains("schema")) body["format"] = *schema;
    }
  }
  body["stream"] = mapped.stream;
  mapped.degradations = degradations.take();
  return mapped;
}

}  // namespace ollama
