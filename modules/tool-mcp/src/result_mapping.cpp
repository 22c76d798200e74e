#include "result_mapping.hpp"

#include "amplifier/model.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

namespace tool_mcp {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

// Cuts text to what is left of the character budget, counting what was dropped.
class TextBudget {
 public:
  explicit TextBudget(std::size_t max_chars) : left_(max_chars) {}

  std::string take(std::string_view text) {
    const std::size_t chars = ms::utf8_length(text);
    total_ += chars;
    if (chars <= left_) {
      left_ -= chars;
      return std::string(text);
    }
    std::string kept(text.substr(0, ms::utf8_prefix_chars(text, left_)));
    left_ = 0;
    cut_ = true;
    return kept;
  }
  bool cut() const { return cut_; }
  std::size_t total() const { return total_; }

 private:
  std::size_t left_;
  std::size_t total_ = 0;
  bool cut_ = false;
};

json::object image_block(const json::object &mcp) {
  return {{"type", "image"},
          {"source",
           {{"type", "base64"},
            {"media_type", ms::string_at(mcp, "mimeType")},
            {"data", ms::string_at(mcp, "data")}}}};
}

// An embedded resource with its text cut to the budget; everything else as sent.
json::object resource_block(const json::object &mcp, TextBudget &budget) {
  json::object block = mcp;
  if (json::value *resource = block.if_contains("resource"); resource && resource->is_object()) {
    json::object &inner = resource->get_object();
    if (const json::value *text = inner.if_contains("text"); text && text->is_string())
      inner["text"] = budget.take(text->get_string());
  }
  return block;
}

struct MappedContent {
  json::array blocks;
  std::string text;  // the text blocks joined
  bool only_text = true;
};

MappedContent map_content(const json::array &content, TextBudget &budget) {
  MappedContent mapped;
  for (const json::value &item : content) {
    if (!item.is_object()) continue;
    const json::object &block = item.get_object();
    const std::string_view type = ms::string_at(block, "type");
    if (type == "text") {
      std::string text = budget.take(ms::string_at(block, "text"));
      if (!mapped.text.empty()) mapped.text += '\n';
      mapped.text += text;
      mapped.blocks.push_back(json::object{{"type", "text"}, {"text", std::move(text)}});
      continue;
    }
    mapped.only_text = false;
    if (type == "image")
      mapped.blocks.push_back(image_block(block));
    else if (type == "resource")
      mapped.blocks.push_back(resource_block(block, budget));
    else
      mapped.blocks.push_back(block);  // audio, resource_link, and types newer than this client
  }
  return mapped;
}

std::string cut_note(const TextBudget &budget, std::size_t max_chars) {
  return "[output cut: " + std::to_string(max_chars) + " of " + std::to_string(budget.total()) +
         " characters shown (tool-mcp max_output_chars)]";
}

json::object base_extra(const ResultContext &context) {
  return {{"server", context.server}, {"mcp_tool", context.tool}};
}

}  // namespace

std::string map_call_result(const json::object &result, const ResultContext &context) {
  TextBudget budget(context.max_output_chars);
  static const json::array kNoContent;
  const json::array *content = ms::array_at(result, "content");
  MappedContent mapped = map_content(content ? *content : kNoContent, budget);
  if (budget.cut()) {
    const std::string note = cut_note(budget, context.max_output_chars);
    mapped.text += "\n" + note;
    mapped.blocks.push_back(json::object{{"type", "text"}, {"text", note}});
  }

  amplifier::ToolResult tool_result;
  tool_result.extra = base_extra(context);
  tool_result.extra["truncated"] = budget.cut();
  const json::value *structured = result.if_contains("structuredContent");
  if (structured) tool_result.extra["structured_content"] = *structured;
  if (mapped.blocks.empty() && structured)
    tool_result.output = json::serialize(*structured);
  else if (mapped.only_text)
    tool_result.output = json::string(mapped.text);
  else
    tool_result.output = std::move(mapped.blocks);

  const json::value *is_error = result.if_contains("isError");
  tool_result.success = !(is_error && is_error->is_bool() && is_error->get_bool());
  if (!tool_result.success)
    tool_result.error = amplifier::ToolError{
        mapped.text.empty() ? "the tool reported an error without a message" : mapped.text, {}};
  return json::serialize(amplifier::to_json(tool_result));
}

std::string failure_result(std::string_view kind, const std::string &message,
                           const ResultContext &context) {
  amplifier::ToolResult tool_result;
  tool_result.success = false;
  tool_result.output = json::string(message);
  tool_result.error = amplifier::ToolError{message, {}};
  tool_result.extra = base_extra(context);
  tool_result.extra["error_kind"] = kind;
  return json::serialize(amplifier::to_json(tool_result));
}

}  // namespace tool_mcp
