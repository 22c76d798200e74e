#include "amplifier/provider/conversation.hpp"

#include "amplifier/module_support/json_util.hpp"

namespace amplifier::provider {

using amplifier::ContentBlock;
using amplifier::Message;
using amplifier::Role;
using amplifier::module_support::string_at;

std::optional<std::string> image_data_url(const boost::json::object &source) {
  if (auto url = string_at(source, "url"); !url.empty()) return std::string(url);
  const auto media_type = string_at(source, "media_type");
  const auto data = string_at(source, "data");
  if (string_at(source, "type") == "base64" && !media_type.empty() && !data.empty())
    return "data:" + std::string(media_type) + ";base64," + std::string(data);
  return std::nullopt;
}

ConversationWalker::ConversationWalker(DegradationLog &degradations, std::string vendor)
    : degradations_(degradations), vendor_(std::move(vendor)) {}

void ConversationWalker::walk(const std::vector<Message> &messages) {
  for (const Message &message : messages) {
    switch (message.role) {
      case Role::system:
        if (auto text = message.text(); !text.empty()) on_system(text);
        break;
      case Role::developer:
        if (auto text = message.text(); !text.empty()) on_developer(text);
        break;
      case Role::assistant:
        close_tool_calls();
        on_assistant(message);
        break;
      case Role::tool:
      case Role::function:
        add_tool_message(message);
        break;
      case Role::user:
        take_results_of(message);
        close_tool_calls();
        on_user(message);
        break;
    }
  }
  close_tool_calls();
}

void ConversationWalker::call_made(const amplifier::ToolCallBlock &call) {
  tool_results_.call_made(call.id, call.name);
}

void ConversationWalker::close_tool_calls() {
  if (!tool_results_.has_open_calls()) return;
  on_results(tool_results_.close());
}

void ConversationWalker::drop_block(const ContentBlock &block, std::string_view role) {
  const std::string type(amplifier::block_type(block));
  degradations_.note(type + "_block",
                     "a " + type + " block in a " + std::string(role) + " message has no " +
                         vendor_ + " equivalent",
                     "the block was left out");
}

void ConversationWalker::take_results_of(const Message &message) {
  const auto *blocks = std::get_if<std::vector<ContentBlock>>(&message.content);
  if (!blocks) return;
  for (const ContentBlock &block : *blocks)
    if (const auto *result = amplifier::block_as<amplifier::ToolResultBlock>(block)) {
      const boost::json::value *is_error = result->extra.if_contains("is_error");
      tool_results_.result_given(result->tool_call_id, tool_output_text(result->output),
                                 is_error && is_error->is_bool() && is_error->get_bool());
    }
}

void ConversationWalker::add_tool_message(const Message &message) {
  bool had_result_block = false;
  if (const auto *blocks = std::get_if<std::vector<ContentBlock>>(&message.content))
    for (const ContentBlock &block : *blocks)
      had_result_block = had_result_block || amplifier::block_as<amplifier::ToolResultBlock>(block);
  if (had_result_block)
    take_results_of(message);
  else
    tool_results_.result_given(message.tool_call_id.value_or(""), message.text());
}

}  // namespace amplifier::provider
