#include "gemini_request.hpp"

#include "gemini_schema.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tools.hpp"
#include "amplifier/provider/conversation.hpp"

#include <set>
#include <boost/json/parse.hpp>

namespace gemini {

namespace json = boost::json;
using amplifier::ContentBlock;
using amplifier::Message;
using amplifier::Role;
using amplifier::module_support::string_at;
using amplifier::provider::DegradationLog;
using amplifier::provider::ToolResultSequencer;

namespace {

// The block's part, with its signature when it came with one.
void sign(json::object &part, const json::object &extra) {
  if (auto signature = string_at(extra, kSignatureKey); !signature.empty())
    part["thoughtSignature"] = signature;
}

// A tool's output as functionResponse.response (an object): JSON objects as they are, any
// other output under "result".
json::object response_object(const std::string &output) {
  json::error_code ec;
  json::value parsed = json::parse(output, ec);
  if (!ec && parsed.is_object()) return std::move(parsed.get_object());
  return json::object{{"result", output}};
}

bool carries_vendor_id(const amplifier::ToolCallBlock &call) {
  const json::value *marked = call.extra.if_contains(kVendorIdKey);
  return marked && marked->is_bool() && marked->get_bool() && !call.id.empty();
}

class ContentMapper final : public amplifier::provider::ConversationWalker {
 public:
  explicit ContentMapper(DegradationLog &degradations)
      : ConversationWalker(degradations, "Gemini") {}

  json::array contents;
  std::string system;

 private:
  std::set<std::string> vendor_ids_;  // calls whose id is Gemini's own

  void on_system(const std::string &text) override {
    system += (system.empty() ? "" : "\n\n") + text;
  }

  void on_user(const Message &message) override {
    json::array parts;
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      if (!plain->empty()) parts.push_back(json::object{{"text", *plain}});
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (amplifier::block_as<amplifier::ToolResultBlock>(block)) continue;
        if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
          if (!t->text.empty()) parts.push_back(json::object{{"text", t->text}});
        } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
          const auto data = string_at(image->source, "data");
          const auto media_type = string_at(image->source, "media_type");
          if (string_at(image->source, "type") == "base64" && !data.empty() && !media_type.empty())
            parts.push_back(json::object{
                {"inlineData", json::object{{"mimeType", media_type}, {"data", data}}}});
          else
            degradations().note("image", "Gemini takes inline images as base64 data",
                                "the image was left out");
        } else {
          drop_block(block, "user");
        }
      }
    }
    if (!parts.empty())
      contents.push_back(json::object{{"role", "user"}, {"parts", std::move(parts)}});
  }

  void on_assistant(const Message &message) override {
    json::array parts;
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      if (!plain->empty()) parts.push_back(json::object{{"text", *plain}});
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
          json::object part{{"text", t->text}};
          sign(part, t->extra);
          // An empty text part matters only when it carries a signature.
          if (!t->text.empty() || part.contains("thoughtSignature"))
            parts.push_back(std::move(part));
        } else if (const auto *th = amplifier::block_as<amplifier::ThinkingBlock>(block)) {
          if (string_at(th->extra, amplifier::ThinkingBlock::kReasoningFieldKey) !=
              kReasoningField) {
            degradations().note("thinking_block",
                                "a thinking block from another provider cannot be sent to Gemini",
                                "the thinking block was left out");
            continue;
          }
          json::object part{{"text", th->thinking}, {"thought", true}};
          if (th->signature && !th->signature->empty()) part["thoughtSignature"] = *th->signature;
          parts.push_back(std::move(part));
        } else if (const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block)) {
          json::object function{{"name", call->name}, {"args", call->input}};
          if (carries_vendor_id(*call)) {
            function["id"] = call->id;
            vendor_ids_.insert(call->id);
          }
          json::object part{{"functionCall", std::move(function)}};
          sign(part, call->extra);
          parts.push_back(std::move(part));
          call_made(*call);
        } else {
          drop_block(block, "assistant");
        }
      }
    }
    if (!parts.empty())
      contents.push_back(json::object{{"role", "model"}, {"parts", std::move(parts)}});
  }

  // Every result of the model turn in one user content, in call order.
  void on_results(std::vector<ToolResultSequencer::Result> results) override {
    json::array parts;
    for (auto &result : results) {
      json::object response{{"name", result.tool_name},
                            {"response", response_object(result.output)}};
      // The answer to a call Gemini named names it back.
      if (vendor_ids_.contains(result.call_id)) response["id"] = result.call_id;
      parts.push_back(json::object{{"functionResponse", std::move(response)}});
    }
    contents.push_back(json::object{{"role", "user"}, {"parts", std::move(parts)}});
  }
};

json::object declaration(const amplifier::ToolSpec &spec, DegradationLog &degradations) {
  json::object function{{"name", spec.name}};
  if (spec.description && !spec.description->empty()) function["description"] = *spec.description;
  if (spec.parameters) {
    ConvertedSchema converted = to_gemini_schema(*spec.parameters);
    function["parameters"] = std::move(converted.schema);
    if (!converted.dropped.empty()) {
      std::string keywords;
      for (const auto &keyword : converted.dropped)
        keywords += (keywords.empty() ? "" : ", ") + keyword;
      degradations.note("tool_schema",
                        "tool '" + spec.name + "': Gemini's schema has no " + keywords,
                        "those keywords were left out of the declaration");
    }
  }
  return function;
}

// tool_choice -> toolConfig.functionCallingConfig.
std::optional<json::object> tool_config(const json::value &choice, DegradationLog &degradations) {
  using Mode = amplifier::provider::ToolChoice::Mode;
  const auto read = amplifier::provider::read_tool_choice(choice, degradations);
  if (!read) return std::nullopt;
  json::object config;
  switch (read->mode) {
    case Mode::named:
      config = {{"mode", "ANY"}, {"allowedFunctionNames", json::array{json::string(read->name)}}};
      break;
    case Mode::none:
      config = {{"mode", "NONE"}};
      break;
    case Mode::required:
      config = {{"mode", "ANY"}};
      break;
    case Mode::automatic:
      config = {{"mode", "AUTO"}};
      break;
  }
  return json::object{{"functionCallingConfig", std::move(config)}};
}

}  // namespace

MappedRequest map_request(const amplifier::ChatRequest &request, const GeminiConfig &config) {
  DegradationLog degradations;
  MappedRequest mapped;
  mapped.model = request.model && !request.model->empty() ? *request.model : config.default_model;
  mapped.stream = request.stream.value_or(true);

  ContentMapper mapper(degradations);
  mapper.walk(request.messages);
  mapped.repaired_tool_calls = mapper.repaired_tool_calls();
  mapped.dropped_tool_results = mapper.dropped_tool_results();
  json::object &body = mapped.body;
  body["contents"] = std::move(mapper.contents);
  if (!mapper.system.empty())
    body["systemInstruction"] = json::object{{"parts", json::array{{{"text", mapper.system}}}}};
  if (request.tools && !request.tools->empty()) {
    json::array declarations;
    for (const auto &spec : *request.tools) declarations.push_back(declaration(spec, degradations));
    body["tools"] = json::array{json::object{{"functionDeclarations", std::move(declarations)}}};
    if (request.tool_choice) {
      if (auto tool_config_object = tool_config(*request.tool_choice, degradations))
        body["toolConfig"] = std::move(*tool_config_object);
    }
  }

  json::object generation;
  if (auto limit = request.max_output_tokens ? request.max_output_tokens : config.max_tokens)
    generation["maxOutputTokens"] = *limit;
  if (auto temperature = request.temperature ? request.temperature : config.temperature)
    generation["temperature"] = *temperature;
  if (request.top_p) generation["topP"] = *request.top_p;
  if (request.stop)
    generation["stopSequences"] =
        request.stop->is_string() ? json::value(json::array{*request.stop}) : *request.stop;
  json::object thinking;
  if (config.thinking_budget) thinking["thinkingBudget"] = *config.thinking_budget;
  // Thought parts stream only when asked for: asked by default of a model that thinks (and is
  // allowed to), as the README promises thinking is shown; `include_thoughts` overrides.
  const bool thinks = model_thinks(mapped.model) && config.thinking_budget.value_or(-1) != 0;
  if (const bool include = config.include_thoughts.value_or(thinks); include || config.include_thoughts)
    thinking["includeThoughts"] = include;
  if (!thinking.empty()) {
    mapped.thinking = config.thinking_budget.value_or(-1) != 0;
    generation["thinkingConfig"] = std::move(thinking);
  }
  if (request.response_format && request.response_format->is_object()) {
    const json::object &format = request.response_format->get_object();
    const std::string_view type = string_at(format, "type");
    if (type == "json_object" || type == "json_schema")
      generation["responseMimeType"] = "application/json";
    const json::value *nested = format.if_contains("json_schema");
    const json::object &holder = nested && nested->is_object() ? nested->get_object() : format;
    if (const json::value *schema = holder.if_contains("schema"); schema && schema->is_object())
      generation["responseSchema"] = to_gemini_schema(schema->get_object()).schema;
  }
  if (!generation.empty()) body["generationConfig"] = std::move(generation);
  mapped.degradations = degradations.take();
  return mapped;
}

}  // namespace gemini
