#include "responses_request.hpp"

#include "amplifier/provider/conversation.hpp"
#include "amplifier/provider/tools.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

namespace openai_responses {

namespace json = boost::json;
using amplifier::ChatRequest;
using amplifier::ContentBlock;
using amplifier::Message;
using amplifier::Role;
using amplifier::provider::DegradationLog;

namespace {

using amplifier::module_support::string_at;

json::object part(std::string_view type, std::string_view text) {
  return {{"type", type}, {"text", text}};
}

json::object message_item(std::string_view role, json::array content) {
  return {{"role", role}, {"content", std::move(content)}};
}

// A reasoning block's summary as the API's list of summary_text parts.
json::array summary_parts(const json::value &summary) {
  if (summary.is_array()) return summary.get_array();
  if (summary.is_string() && !summary.get_string().empty())
    return json::array{part("summary_text", summary.get_string())};
  return {};
}

class InputMapper final : public amplifier::provider::ConversationWalker {
 public:
  explicit InputMapper(DegradationLog &degradations)
      : ConversationWalker(degradations, "Responses API") {}

  InputMapping run(const std::vector<Message> &messages) {
    walk(messages);
    result_.repaired_tool_calls = repaired_tool_calls();
    result_.dropped_tool_results = dropped_tool_results();
    return std::move(result_);
  }

 private:
  void on_developer(const std::string &text) override {
    close_tool_calls();
    result_.input.push_back(message_item("developer", json::array{part("input_text", text)}));
  }

  void on_system(const std::string &text) override {
    if (!result_.instructions.empty()) result_.instructions += "\n\n";
    result_.instructions += text;
  }

  void on_user(const Message &message) override {
    json::array content;
    if (const auto *text = std::get_if<std::string>(&message.content)) {
      if (!text->empty()) content.push_back(part("input_text", *text));
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (amplifier::block_as<amplifier::ToolResultBlock>(block)) continue;
        if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
          if (!t->text.empty()) content.push_back(part("input_text", t->text));
        } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
          if (auto url = amplifier::provider::image_data_url(image->source))
            content.push_back(json::object{{"type", "input_image"}, {"image_url", *url}});
          else
            degradations().note("image", "an image source that is neither base64 nor a URL",
                                "the image was left out");
        } else {
          drop_block(block, "user");
        }
      }
    }
    if (!content.empty()) result_.input.push_back(message_item("user", std::move(content)));
  }

  // The blocks in their order: text runs become assistant messages; reasoning and function
  // calls become items of their own between them, exactly where the model produced them.
  void on_assistant(const Message &message) override {
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      if (!plain->empty())
        result_.input.push_back(
            message_item("assistant", json::array{part("output_text", *plain)}));
      return;
    }
    json::array text;
    auto flush_text = [&] {
      if (!text.empty()) result_.input.push_back(message_item("assistant", std::move(text)));
      text = {};
    };
    for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
      if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
        if (!t->text.empty()) text.push_back(part("output_text", t->text));
      } else if (const auto *reasoning = amplifier::block_as<amplifier::ReasoningBlock>(block)) {
        flush_text();
        add_reasoning(*reasoning);
      } else if (const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block)) {
        flush_text();
        add_function_call(*call);
      } else {
        drop_block(block, "assistant");
      }
    }
    flush_text();
  }

  // Re-sent as received: id, summary and the last encrypted_content, which is what lets the
  // model continue its reasoning without server-side state.
  void add_reasoning(const amplifier::ReasoningBlock &block) {
    const auto id = string_at(block.extra, "id");
    if (id.empty()) {
      degradations().note("reasoning_block",
                          "a reasoning block without an item id (from another provider) cannot be "
                          "sent to the Responses API",
                          "the reasoning block was left out");
      return;
    }
    json::object item{{"type", "reasoning"}, {"id", id}, {"summary", summary_parts(block.summary)}};
    if (const json::value *encrypted = block.extra.if_contains("encrypted_content");
        encrypted && encrypted->is_string())
      item["encrypted_content"] = *encrypted;
    result_.input.push_back(std::move(item));
  }

  void add_function_call(const amplifier::ToolCallBlock &call) {
    json::object item{{"type", "function_call"}, {"call_id", call.id}, {"name", call.name}};
    // The arguments as the model wrote them when they were kept (they did not survive a
    // parse unchanged, or were not JSON at all), else the input as JSON text.
    if (auto raw = string_at(call.extra, "arguments"); call.extra.contains("arguments"))
      item["arguments"] = raw;
    else
      item["arguments"] = json::serialize(call.input);
    if (auto item_id = string_at(call.extra, "item_id"); !item_id.empty()) item["id"] = item_id;
    result_.input.push_back(std::move(item));
    call_made(call);
  }

  // The results of the latest calls, in call order (synthetic for the missing ones), so the
  // conversation stays valid after an interrupted tool run.
  void on_results(std::vector<amplifier::provider::ToolResultSequencer::Result> results) override {
    for (auto &result : results)
      result_.input.push_back(json::object{{"type", "function_call_output"},
                                           {"call_id", result.call_id},
                                           {"output", std::move(result.output)}});
  }

  InputMapping result_;
};

json::object tool_definition(const amplifier::ToolSpec &spec) {
  json::object tool = amplifier::provider::function_declaration(spec);
  tool["type"] = "function";
  // The API's default is strict validation, which only schemas written for it pass (every
  // property required, no additional properties); a tool's own schema is checked as it is.
  tool["strict"] = false;
  return tool;
}

// The Responses tool_choice, or nullopt for the API default (auto).
std::optional<json::value> tool_choice(const json::value &choice, DegradationLog &degradations) {
  return amplifier::provider::openai_tool_choice(choice, degradations, [](std::string_view name) {
    return json::value(json::object{{"type", "function"}, {"name", name}});
  });
}

// response_format -> text.format: json_schema and json_object are the API's own modes.
std::optional<json::object> text_format(const json::value &format, DegradationLog &degradations) {
  std::string_view type;
  if (format.is_string()) type = format.get_string();
  if (format.is_object()) type = string_at(format.get_object(), "type");
  if (type.empty() || type == "text") return std::nullopt;
  if (type == "json_object") return json::object{{"type", "json_object"}};
  if (type == "json_schema" && format.is_object()) {
    // Chat Completions nests the schema under json_schema; the Responses API flattens it.
    const json::object &object = format.get_object();
    const json::value *nested = object.if_contains("json_schema");
    json::object out = nested && nested->is_object() ? nested->get_object() : object;
    out["type"] = "json_schema";
    if (!out.contains("name")) out["name"] = "response";
    return out;
  }
  degradations.note("response_format", "response_format '" + std::string(type) + "' is not known",
                    "unconstrained text");
  return std::nullopt;
}

std::optional<std::string> effort_for(const ChatRequest &request, const ResponsesConfig &config,
                                      DegradationLog &degradations) {
  if (request.reasoning_effort) {
    if (is_known_reasoning_effort(*request.reasoning_effort)) return request.reasoning_effort;
    degradations.note("reasoning_effort",
                      "reasoning_effort '" + *request.reasoning_effort + "' is not known",
                      config.reasoning_effort ? "the configured effort" : "the model's default");
  }
  return config.reasoning_effort;
}

}  // namespace

InputMapping map_input(const std::vector<Message> &messages, DegradationLog &degradations) {
  return InputMapper(degradations).run(messages);
}

MappedRequest map_request(const ChatRequest &request, const ResponsesConfig &config) {
  DegradationLog degradations;
  MappedRequest mapped;
  const ModelTarget target = resolve_model(config, request.model);
  mapped.model = target.model;
  mapped.api_model = target.api_model;
  mapped.stream = request.stream.value_or(true);

  InputMapping input = map_input(request.messages, degradations);
  mapped.repaired_tool_calls = std::move(input.repaired_tool_calls);
  mapped.dropped_tool_results = std::move(input.dropped_tool_results);

  json::object &body = mapped.body;
  body["model"] = mapped.api_model;
  if (!input.instructions.empty()) body["instructions"] = std::move(input.instructions);
  body["input"] = std::move(input.input);
  if (request.tools && !request.tools->empty()) {
    json::array tools;
    for (const auto &spec : *request.tools) tools.push_back(tool_definition(spec));
    body["tools"] = std::move(tools);
    if (request.tool_choice) {
      if (auto choice = tool_choice(*request.tool_choice, degradations))
        body["tool_choice"] = std::move(*choice);
    }
  }
  if (auto limit = request.max_output_tokens ? request.max_output_tokens : config.max_tokens)
    body["max_output_tokens"] = *limit;
  if (auto temperature = request.temperature ? request.temperature : config.temperature)
    body["temperature"] = *temperature;
  if (request.top_p) body["top_p"] = *request.top_p;
  if (auto effort = effort_for(request, config, degradations)) {
    json::object reasoning{{"effort", *effort}};
    if (*effort != "none" && config.reasoning_summary != "none")
      reasoning["summary"] = config.reasoning_summary;
    body["reasoning"] = std::move(reasoning);
    mapped.reasoning = *effort != "none";
  }
  if (request.response_format) {
    if (auto format = text_format(*request.response_format, degradations))
      body["text"] = json::object{{"format", std::move(*format)}};
  }
  if (request.stop)
    degradations.note("stop", "the Responses API has no stop sequences",
                      "the model stops on its own");
  body["store"] = config.store;
  if (config.prompt_cache_key) body["prompt_cache_key"] = *config.prompt_cache_key;
  if (config.prompt_cache_retention) body["prompt_cache_retention"] = *config.prompt_cache_retention;
  // Without server-side storage the reasoning comes back encrypted, to be sent back as is.
  if (!config.store) body["include"] = json::array{"reasoning.encrypted_content"};
  body["stream"] = mapped.stream;
  mapped.degradations = degradations.take();
  return mapped;
}

}  // namespace openai_responses
