#include "chat_request.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tool_results.hpp"

#include <boost/json/serialize.hpp>

namespace chat_completions {

namespace json = boost::json;
using amplifier::ContentBlock;
using amplifier::Message;
using amplifier::Role;
using amplifier::module_support::string_at;
using amplifier::provider::DegradationLog;
using amplifier::provider::tool_output_text;
using amplifier::provider::ToolResultSequencer;

namespace {

// An image as a URL the API takes: a URL, or the base64 data as a data: URL.
std::optional<std::string> image_url(const json::object &source) {
  if (auto url = string_at(source, "url"); !url.empty()) return std::string(url);
  const auto media_type = string_at(source, "media_type");
  const auto data = string_at(source, "data");
  if (string_at(source, "type") == "base64" && !media_type.empty() && !data.empty())
    return "data:" + std::string(media_type) + ";base64," + std::string(data);
  return std::nullopt;
}

class MessageMapper {
 public:
  explicit MessageMapper(DegradationLog &degradations) : degradations_(degradations) {}

  json::array run(const std::vector<Message> &messages) {
    for (const Message &message : messages) add(message);
    close_tool_calls();
    return std::move(out_);
  }

  ToolResultSequencer &tool_results() { return tool_results_; }

 private:
  void add(const Message &message) {
    switch (message.role) {
      case Role::system:
      case Role::developer:
        close_tool_calls();
        if (auto text = message.text(); !text.empty())
          out_.push_back(json::object{{"role", "system"}, {"content", text}});
        return;
      case Role::assistant:
        return add_assistant(message);
      case Role::tool:
      case Role::function:
        return add_tool_message(message);
      case Role::user:
        return add_user(message);
    }
  }

  void add_user(const Message &message) {
    if (const auto *text = std::get_if<std::string>(&message.content)) {
      close_tool_calls();
      out_.push_back(json::object{{"role", "user"}, {"content", *text}});
      return;
    }
    json::array parts;
    bool only_text = true;
    for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
      if (const auto *result = amplifier::block_as<amplifier::ToolResultBlock>(block)) {
        tool_results_.result_given(result->tool_call_id, tool_output_text(result->output));
      } else if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
        parts.push_back(json::object{{"type", "text"}, {"text", t->text}});
      } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
        if (auto url = image_url(image->source)) {
          parts.push_back(
              json::object{{"type", "image_url"}, {"image_url", json::object{{"url", *url}}}});
          only_text = false;
        } else {
          degradations_.note("image", "an image source that is neither base64 nor a URL",
                             "the image was left out");
        }
      } else {
        drop_block(block, "user");
      }
    }
    close_tool_calls();
    if (parts.empty()) return;
    // Text alone goes as one string: every server takes that, not every one takes parts.
    if (only_text) {
      std::string text;
      for (const auto &part : parts) text += part.at("text").as_string();
      out_.push_back(json::object{{"role", "user"}, {"content", text}});
    } else {
      out_.push_back(json::object{{"role", "user"}, {"content", std::move(parts)}});
    }
  }

  void add_assistant(const Message &message) {
    close_tool_calls();
    json::object out{{"role", "assistant"}};
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      out["content"] = *plain;
      out_.push_back(std::move(out));
      return;
    }
    std::string text, reasoning, reasoning_field;
    json::array calls;
    for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
      if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
        text += t->text;
      } else if (const auto *thinking = amplifier::block_as<amplifier::ThinkingBlock>(block)) {
        const auto field = string_at(thinking->extra, kReasoningFieldKey);
        if (field.empty()) {
          degradations_.note("thinking_block",
                             "a thinking block from another provider cannot be sent to a Chat "
                             "Completions server",
                             "the thinking block was left out");
          continue;
        }
        reasoning += thinking->thinking;
        reasoning_field = field;
      } else if (const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block)) {
        calls.push_back(function_call(*call));
        tool_results_.call_made(call->id, call->name);
      } else {
        drop_block(block, "assistant");
      }
    }
    // Reasoning goes back in the field the server sent it in: servers that need it within a
    // tool loop (DeepSeek, vLLM's reasoning parsers) read it there.
    if (!reasoning.empty()) out[reasoning_field] = reasoning;
    out["content"] = text.empty() && !calls.empty() ? json::value(nullptr) : json::value(text);
    if (!calls.empty()) out["tool_calls"] = std::move(calls);
    out_.push_back(std::move(out));
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

  void add_tool_message(const Message &message) {
    bool had_result_block = false;
    if (const auto *blocks = std::get_if<std::vector<ContentBlock>>(&message.content)) {
      for (const ContentBlock &block : *blocks) {
        if (const auto *result = amplifier::block_as<amplifier::ToolResultBlock>(block)) {
          had_result_block = true;
          tool_results_.result_given(result->tool_call_id, tool_output_text(result->output));
        }
      }
    }
    if (!had_result_block)
      tool_results_.result_given(message.tool_call_id.value_or(""), message.text());
  }

  void close_tool_calls() {
    for (auto &result : tool_results_.close())
      out_.push_back(json::object{{"role", "tool"},
                                  {"tool_call_id", result.call_id},
                                  {"content", std::move(result.output)}});
  }

  void drop_block(const ContentBlock &block, std::string_view role) {
    const std::string type(amplifier::block_type(block));
    degradations_.note(type + "_block",
                       "a " + type + " block in a " + std::string(role) +
                           " message has no Chat Completions equivalent",
                       "the block was left out");
  }

  DegradationLog &degradations_;
  json::array out_;
  ToolResultSequencer tool_results_;
};

json::object tool_definition(const amplifier::ToolSpec &spec) {
  json::object function{{"name", spec.name}};
  if (spec.description && !spec.description->empty()) function["description"] = *spec.description;
  function["parameters"] = spec.parameters
                               ? *spec.parameters
                               : json::object{{"type", "object"}, {"properties", json::object{}}};
  return json::object{{"type", "function"}, {"function", std::move(function)}};
}

// The Chat Completions tool_choice, or nullopt for the server's default (auto).
std::optional<json::value> tool_choice(const json::value &choice, DegradationLog &degradations) {
  std::string_view mode, name;
  if (choice.is_string()) {
    mode = choice.get_string();
  } else if (const json::object *object = choice.if_object()) {
    mode = string_at(*object, "type");
    name = string_at(*object, "name");
    if (const json::value *function = object->if_contains("function");
        name.empty() && function && function->is_object())
      name = string_at(function->get_object(), "name");
  }
  if (!name.empty())
    return json::object{{"type", "function"}, {"function", json::object{{"name", name}}}};
  if (mode == "auto" || mode == "none" || mode == "required") return json::value(mode);
  if (mode == "any") return json::value("required");
  degradations.note("tool_choice", "tool_choice " + json::serialize(choice) + " is not understood",
                    "auto");
  return std::nullopt;
}

}  // namespace

MappedChat map_request(const amplifier::ChatRequest &request, const ChatConfig &config) {
  DegradationLog degradations;
  MappedChat mapped;
  mapped.model = request.model && !request.model->empty() ? *request.model : config.default_model;
  mapped.stream = request.stream.value_or(true);

  MessageMapper mapper(degradations);
  json::object &body = mapped.body;
  body["model"] = mapped.model;
  body["messages"] = mapper.run(request.messages);
  mapped.repaired_tool_calls = mapper.tool_results().repaired();
  mapped.dropped_tool_results = mapper.tool_results().dropped();
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
