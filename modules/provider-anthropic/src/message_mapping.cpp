#include "message_mapping.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <set>
#include <string_view>

namespace provider_anthropic {

namespace json = boost::json;
using amplifier::ContentBlock;
using amplifier::Message;
using amplifier::Role;

namespace {

// One Anthropic message under construction.
struct Turn {
  std::string_view role;  // "user" | "assistant"
  json::array content;
};

// The tool calls of the latest assistant turn, waiting for their results. Results go into the
// user turn placed right after that assistant turn, which is where the API looks for them.
struct OpenToolCalls {
  std::vector<RepairedToolCall> calls;  // id and name, in call order
  std::set<std::string, std::less<>> answered;
  std::size_t results_turn = 0;  // index into the turn list
  bool open = false;
};

json::object text_block(std::string_view text) { return {{"type", "text"}, {"text", text}}; }

// The text a tool result sends: strings as they are, anything else as JSON text.
std::string tool_output_text(const json::value &output) {
  if (output.is_string()) return std::string(output.get_string());
  if (output.is_null()) return {};
  return json::serialize(output);
}

bool is_error_result(const amplifier::ToolResultBlock &block) {
  const json::value *flag = block.extra.if_contains("is_error");
  return flag && flag->is_bool() && flag->get_bool();
}

json::object tool_result_block(std::string_view tool_use_id, std::string content, bool is_error) {
  json::object block{
      {"type", "tool_result"}, {"tool_use_id", tool_use_id}, {"content", std::move(content)}};
  if (is_error) block["is_error"] = true;
  return block;
}

// Anthropic takes base64 and URL image sources. A data: URL is turned into a base64 source;
// any other shape cannot be sent.
std::optional<json::object> image_source(const json::object &source) {
  const json::value *type = source.if_contains("type");
  const std::string_view kind =
      type && type->is_string() ? std::string_view(type->get_string()) : "";
  if (kind == "base64" && source.contains("media_type") && source.contains("data")) {
    return json::object{
        {"type", "base64"}, {"media_type", source.at("media_type")}, {"data", source.at("data")}};
  }
  const json::value *url = source.if_contains("url");
  if (!url || !url->is_string()) return std::nullopt;
  const std::string_view text = url->get_string();
  constexpr std::string_view kDataPrefix = "data:";
  constexpr std::string_view kBase64Marker = ";base64,";
  if (text.substr(0, kDataPrefix.size()) == kDataPrefix) {
    const auto marker = text.find(kBase64Marker);
    if (marker == std::string_view::npos) return std::nullopt;
    return json::object{
        {"type", "base64"},
        {"media_type", text.substr(kDataPrefix.size(), marker - kDataPrefix.size())},
        {"data", text.substr(marker + kBase64Marker.size())}};
  }
  return json::object{{"type", "url"}, {"url", text}};
}

class ConversationMapper {
 public:
  explicit ConversationMapper(DegradationLog &degradations) : degradations_(degradations) {}

  ConversationMapping run(const std::vector<Message> &messages) {
    add_developer_context(messages);
    for (const Message &message : messages) add(message);
    close_tool_calls();
    result_.messages = merged_turns();
    return std::move(result_);
  }

 private:
  void add(const Message &message) {
    switch (message.role) {
      case Role::system:
        add_system(message.text());
        return;
      case Role::developer:
        return;  // gathered up front by add_developer_context
      case Role::assistant:
        add_assistant(message);
        return;
      case Role::tool:
      case Role::function:
        add_tool_message(message);
        return;
      case Role::user:
        add_user(message);
        return;
    }
  }

  void add_system(const std::string &text) {
    if (text.empty()) return;
    if (!result_.system) {
      result_.system = text;
    } else {
      *result_.system += "\n\n" + text;
    }
  }

  // Developer messages are instructions from the application rather than the user. The
  // Messages API has no such role, so they travel as user context, marked as such, ahead of
  // the conversation (the first user message then merges into the same turn).
  void add_developer_context(const std::vector<Message> &messages) {
    json::array blocks;
    for (const Message &message : messages) {
      if (message.role != Role::developer) continue;
      const std::string text = message.text();
      if (!text.empty()) blocks.push_back(text_block("<context>\n" + text + "\n</context>"));
    }
    if (!blocks.empty()) turns_.push_back(Turn{"user", std::move(blocks)});
  }

  void add_user(const Message &message) {
    json::array content;
    if (const auto *text = std::get_if<std::string>(&message.content)) {
      if (!text->empty()) content.push_back(text_block(*text));
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (const auto *result = amplifier::block_as<amplifier::ToolResultBlock>(block)) {
          add_tool_result(result->tool_call_id, tool_output_text(result->output),
                          is_error_result(*result));
        } else if (auto mapped = user_block(block)) {
          content.push_back(std::move(*mapped));
        }
      }
    }
    close_tool_calls();
    if (!content.empty()) turns_.push_back(Turn{"user", std::move(content)});
  }

  std::optional<json::object> user_block(const ContentBlock &block) {
    if (const auto *text = amplifier::block_as<amplifier::TextBlock>(block)) {
      if (text->text.empty()) return std::nullopt;  // the API rejects empty text blocks
      return text_block(text->text);
    }
    if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block))
      return image_block(*image);
    drop_block(block, "user");
    return std::nullopt;
  }

  std::optional<json::object> image_block(const amplifier::ImageBlock &image) {
    if (auto source = image_source(image.source))
      return json::object{{"type", "image"}, {"source", std::move(*source)}};
    degradations_.note(
        "image", "an image source that is neither base64 nor a URL cannot be sent to Anthropic",
        "the image was left out");
    return std::nullopt;
  }

  // Thinking and redacted thinking go first, unchanged (the API verifies their signatures
  // against the exact bytes), then text, then the tool calls.
  void add_assistant(const Message &message) {
    close_tool_calls();
    json::array reasoning, text, tool_uses;
    std::vector<RepairedToolCall> calls;
    if (const auto *plain = std::get_if<std::string>(&message.content)) {
      if (!plain->empty()) text.push_back(text_block(*plain));
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (const auto *thinking = amplifier::block_as<amplifier::ThinkingBlock>(block)) {
          if (auto mapped = thinking_block(*thinking)) reasoning.push_back(std::move(*mapped));
        } else if (const auto *redacted =
                       amplifier::block_as<amplifier::RedactedThinkingBlock>(block)) {
          reasoning.push_back(
              json::object{{"type", "redacted_thinking"}, {"data", redacted->data}});
        } else if (const auto *t = amplifier::block_as<amplifier::TextBlock>(block)) {
          if (!t->text.empty()) text.push_back(text_block(t->text));
        } else if (const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block)) {
          tool_uses.push_back(json::object{{"type", "tool_use"},
                                           {"id", call->id},
                                           {"name", call->name},
                                           {"input", call->input}});
          calls.push_back(RepairedToolCall{call->id, call->name});
        } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
          (void)image;
          degradations_.note("assistant_image", "Anthropic accepts images only from the user",
                             "the image was left out");
        } else {
          drop_block(block, "assistant");
        }
      }
    }
    json::array content = std::move(reasoning);
    for (auto &b : text) content.push_back(std::move(b));
    for (auto &b : tool_uses) content.push_back(std::move(b));
    if (content.empty()) return;
    turns_.push_back(Turn{"assistant", std::move(content)});
    if (!calls.empty()) open_tool_calls(std::move(calls));
  }

  std::optional<json::object> thinking_block(const amplifier::ThinkingBlock &thinking) {
    if (!thinking.signature || thinking.signature->empty()) {
      // Anthropic rejects thinking it did not sign (e.g. from another provider after a switch).
      degradations_.note("thinking_without_signature",
                         "a thinking block without a signature (from another provider) cannot be "
                         "sent to Anthropic",
                         "the thinking block was left out");
      return std::nullopt;
    }
    return json::object{
        {"type", "thinking"}, {"thinking", thinking.thinking}, {"signature", *thinking.signature}};
  }

  void drop_block(const ContentBlock &block, std::string_view role) {
    const std::string type(amplifier::block_type(block));
    degradations_.note(
        type + "_block",
        "a " + type + " block in a " + std::string(role) + " message has no Anthropic equivalent",
        "the block was left out");
  }

  // A tool message: its tool_result blocks, or its text as the result of `tool_call_id`.
  void add_tool_message(const Message &message) {
    bool had_result_block = false;
    if (const auto *blocks = std::get_if<std::vector<ContentBlock>>(&message.content)) {
      for (const ContentBlock &block : *blocks) {
        if (const auto *result = amplifier::block_as<amplifier::ToolResultBlock>(block)) {
          had_result_block = true;
          add_tool_result(result->tool_call_id, tool_output_text(result->output),
                          is_error_result(*result));
        }
      }
    }
    if (!had_result_block)
      add_tool_result(message.tool_call_id.value_or(""), message.text(), false);
  }

  void add_tool_result(const std::string &tool_call_id, std::string content, bool is_error) {
    const bool expected =
        open_.open && !open_.answered.contains(tool_call_id) &&
        std::any_of(open_.calls.begin(), open_.calls.end(),
                    [&](const RepairedToolCall &c) { return c.tool_call_id == tool_call_id; });
    if (!expected) {
      result_.dropped_tool_results.push_back(tool_call_id);
      return;
    }
    open_.answered.insert(tool_call_id);
    turns_[open_.results_turn].content.push_back(
        tool_result_block(tool_call_id, std::move(content), is_error));
  }

  void open_tool_calls(std::vector<RepairedToolCall> calls) {
    open_ = OpenToolCalls{};
    open_.calls = std::move(calls);
    open_.results_turn = turns_.size();
    open_.open = true;
    turns_.push_back(Turn{"user", {}});
  }

  // Gives every unanswered call of the latest assistant turn a synthetic error result, so the
  // conversation stays valid after an interrupted tool run.
  void close_tool_calls() {
    if (!open_.open) return;
    for (const RepairedToolCall &call : open_.calls) {
      if (open_.answered.contains(call.tool_call_id)) continue;
      turns_[open_.results_turn].content.push_back(
          tool_result_block(call.tool_call_id, std::string(kMissingToolResultText), true));
      result_.repaired_tool_calls.push_back(call);
    }
    open_ = OpenToolCalls{};
  }

  // Empty turns dropped, consecutive turns of one role merged (the API rejects two user
  // messages in a row).
  json::array merged_turns() {
    std::vector<Turn> merged;
    for (Turn &turn : turns_) {
      if (turn.content.empty()) continue;
      if (!merged.empty() && merged.back().role == turn.role) {
        for (auto &block : turn.content) merged.back().content.push_back(std::move(block));
      } else {
        merged.push_back(std::move(turn));
      }
    }
    json::array out;
    out.reserve(merged.size());
    for (Turn &turn : merged)
      out.push_back(json::object{{"role", turn.role}, {"content", std::move(turn.content)}});
    return out;
  }

  DegradationLog &degradations_;
  ConversationMapping result_;
  std::vector<Turn> turns_;
  OpenToolCalls open_;
};

}  // namespace

ConversationMapping map_conversation(const std::vector<Message> &messages,
                                     DegradationLog &degradations) {
  return ConversationMapper(degradations).run(messages);
}

}  // namespace provider_anthropic
