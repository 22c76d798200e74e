#include "message_mapping.hpp"

#include "prompt_caching.hpp"

#include "amplifier/provider/conversation.hpp"

#include <boost/json/serialize.hpp>

#include <optional>
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

json::object text_block(std::string_view text) { return {{"type", "text"}, {"text", text}}; }

// Where a message's request-only text begins (metadata.ephemeral_from, set by the agent loop),
// when it has some and the offset lies within its string content.
std::optional<std::size_t> ephemeral_from(const Message &message) {
  if (!message.metadata) return std::nullopt;
  const json::value *from = message.metadata->if_contains("ephemeral_from");
  const auto *text = std::get_if<std::string>(&message.content);
  if (!from || !text) return std::nullopt;
  json::error_code ec;
  const auto at = from->to_number<std::size_t>(ec);
  if (ec || at > text->size()) return std::nullopt;
  return at;
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

class ConversationMapper final : public amplifier::provider::ConversationWalker {
 public:
  explicit ConversationMapper(DegradationLog &degradations)
      : ConversationWalker(degradations, "Anthropic") {}

  ConversationMapping run(const std::vector<Message> &messages) {
    add_developer_context(messages);
    walk(messages);
    result_.messages = merged_turns();
    result_.repaired_tool_calls = repaired_tool_calls();
    result_.dropped_tool_results = dropped_tool_results();
    return std::move(result_);
  }

 private:
  void on_system(const std::string &text) override { add_system(text); }
  void on_developer(const std::string &) override {}  // gathered up front
  void on_user(const Message &message) override { add_user(message); }
  void on_assistant(const Message &message) override { add_assistant(message); }

  // The results of the latest assistant turn's calls, in call order, in the user turn right
  // after it (where the API looks for them); an interrupted call gets a synthetic error result.
  void on_results(std::vector<amplifier::provider::ToolResultSequencer::Result> results) override {
    json::array content;
    for (auto &result : results)
      content.push_back(
          tool_result_block(result.call_id, std::move(result.output), result.is_error));
    turns_.push_back(Turn{"user", std::move(content)});
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
      // Text the agent loop added for this request only (metadata.ephemeral_from) travels in a
      // block of its own, marked so no cache breakpoint is put on or after it: the prefix the
      // next request shares with this one then ends before it (prompt_caching.cpp).
      const std::size_t stable = ephemeral_from(message).value_or(text->size());
      if (stable > 0) content.push_back(text_block(std::string_view(*text).substr(0, stable)));
      if (stable < text->size()) {
        std::string_view added = std::string_view(*text).substr(stable);
        while (added.starts_with('\n')) added.remove_prefix(1);
        if (!added.empty()) {
          json::object block = text_block(added);
          block[kEphemeralMark] = true;
          content.push_back(std::move(block));
        }
      }
    } else {
      for (const ContentBlock &block : std::get<std::vector<ContentBlock>>(message.content)) {
        if (amplifier::block_as<amplifier::ToolResultBlock>(block)) continue;  // taken already
        if (auto mapped = user_block(block)) content.push_back(std::move(*mapped));
      }
    }
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
    degradations().note(
        "image", "an image source that is neither base64 nor a URL cannot be sent to Anthropic",
        "the image was left out");
    return std::nullopt;
  }

  // Thinking and redacted thinking go first, unchanged (the API verifies their signatures
  // against the exact bytes), then text, then the tool calls.
  void add_assistant(const Message &message) {
    json::array reasoning, text, tool_uses;
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
          call_made(*call);
        } else if (const auto *image = amplifier::block_as<amplifier::ImageBlock>(block)) {
          (void)image;
          degradations().note("assistant_image", "Anthropic accepts images only from the user",
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
  }

  std::optional<json::object> thinking_block(const amplifier::ThinkingBlock &thinking) {
    if (!thinking.signature || thinking.signature->empty()) {
      // Anthropic rejects thinking it did not sign (e.g. from another provider after a switch).
      degradations().note("thinking_without_signature",
                          "a thinking block without a signature (from another provider) cannot "
                          "be sent to Anthropic",
                          "the thinking block was left out");
      return std::nullopt;
    }
    return json::object{
        {"type", "thinking"}, {"thinking", thinking.thinking}, {"signature", *thinking.signature}};
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

  ConversationMapping result_;
  std::vector<Turn> turns_;
};

}  // namespace

ConversationMapping map_conversation(const std::vector<Message> &messages,
                                     DegradationLog &degradations) {
  return ConversationMapper(degradations).run(messages);
}

}  // namespace provider_anthropic
