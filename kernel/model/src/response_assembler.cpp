// ResponseAssembler: stream events -> ChatResponse. On the hot stream path, so a delta costs
// a few key lookups and a string append; blocks are completed and parsed once, at their end.
#include "amplifier/stream.hpp"

#include "parsers.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

namespace {

// The block types whose deltas the assembler knows how to apply.
enum class BlockKind { text, thinking, redacted_thinking, reasoning, tool_call, other };

BlockKind kind_of(std::string_view type) {
  if (type == TextBlock::kType) return BlockKind::text;
  if (type == ThinkingBlock::kType) return BlockKind::thinking;
  if (type == RedactedThinkingBlock::kType) return BlockKind::redacted_thinking;
  if (type == ReasoningBlock::kType) return BlockKind::reasoning;
  if (type == ToolCallBlock::kType) return BlockKind::tool_call;
  return BlockKind::other;
}

// A block between its start and end events.
struct PendingBlock {
  std::uint64_t index = 0;
  BlockKind kind = BlockKind::other;
  json::object partial;     // the block as content_block_start gave it
  std::string accumulated;  // text, thinking, redacted data or tool input JSON
  std::string signature;
  bool has_signature = false;
  json::value reasoning_content;
  json::value reasoning_summary;
  std::optional<ContentBlock> completed;  // set by content_block_end (when content is kept)
  bool ended = false;                     // content_block_end arrived
};

std::string_view string_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string_view(value->get_string())
                                                : std::string_view();
}

// Enough of a long text to recognise it in an error message.
std::string excerpt(std::string_view text) {
  constexpr std::size_t kMaxChars = 200;
  if (text.size() <= kMaxChars) return std::string(text);
  return std::string(text.substr(0, kMaxChars)) + "... (" + std::to_string(text.size()) + " bytes)";
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// Reasoning parts grow by concatenating strings or appending array items.
void append_reasoning_part(json::value &into, const json::value *part, const JsonPath &path) {
  if (part == nullptr || part->is_null()) return;
  if (into.is_null() && (part->is_string() || part->is_array())) {
    into = *part;  // assignment copies into `into`'s own (default) resource
    return;
  }
  if (part->is_string() && into.is_string()) {
    into.get_string().append(part->get_string());
    return;
  }
  if (part->is_array() && into.is_array()) {
    for (const auto &item : part->get_array()) into.get_array().push_back(item);
    return;
  }
  path.fail("expected a string or an array matching the reasoning block's earlier parts");
}

}  // namespace

struct ResponseAssembler::State {
  bool keep_content = true;
  std::vector<PendingBlock> blocks;  // in start order
  json::object usage;
  bool has_usage = false;
  std::size_t events_fed = 0;

  const ContentBlock *feed(const json::object &event, const JsonPath &path);
  void on_start(const json::object &event, const JsonPath &path);
  void on_delta(const json::object &event, const JsonPath &path);
  const ContentBlock *on_end(const json::object &event, const JsonPath &path);
  void on_usage(const json::object &event, const JsonPath &path);

  PendingBlock *find(std::uint64_t index);
  PendingBlock &open_block(const json::object &event, std::string_view event_type,
                           const JsonPath &path);
  PendingBlock &open_block_at(std::uint64_t index, std::string_view event_type,
                              const JsonPath &path);
  void apply_typed_delta(PendingBlock &block, amp_delta_kind kind, std::string_view text,
                         const JsonPath &path);
  static std::uint64_t read_index(const json::object &event, const JsonPath &path);
  void apply_delta(PendingBlock &block, const json::object &delta, const JsonPath &path) const;
  static ContentBlock complete(PendingBlock &block, const JsonPath &path);
};

ResponseAssembler::ResponseAssembler() : state_(std::make_unique<State>()) {}
ResponseAssembler::ResponseAssembler(Options options) : state_(std::make_unique<State>()) {
  state_->keep_content = options.keep_content;
}
ResponseAssembler::~ResponseAssembler() = default;
ResponseAssembler::ResponseAssembler(ResponseAssembler &&) noexcept = default;
ResponseAssembler &ResponseAssembler::operator=(ResponseAssembler &&) noexcept = default;

const ContentBlock *ResponseAssembler::feed(const json::object &event) {
  const std::size_t position = state_->events_fed++;
  const JsonPath events;
  return state_->feed(event, events.child("events").at(position));
}

const ContentBlock *ResponseAssembler::feed(const json::value &event) {
  if (const auto *object = event.if_object()) return feed(*object);
  const std::size_t position = state_->events_fed++;
  const JsonPath events;
  events.child("events").at(position).fail("a stream event must be a JSON object");
}

const ContentBlock *ResponseAssembler::feed_json(std::string_view event_json) {
  // Typical events fit the stack buffer, so parsing them allocates nothing; the assembler
  // copies what it keeps out of the buffer before it goes away.
  unsigned char buffer[4096];
  json::monotonic_resource scratch(buffer, sizeof buffer);
  json::error_code error;
  json::value event = json::parse(event_json, error, &scratch);
  if (error) {
    const std::size_t position = state_->events_fed++;
    const JsonPath events;
    events.child("events").at(position).fail("invalid event JSON: " + error.message());
  }
  return feed(event);
}

void ResponseAssembler::feed_delta(std::uint64_t index, amp_delta_kind kind,
                                   std::string_view text) {
  const std::size_t position = state_->events_fed++;
  const JsonPath root;
  const JsonPath events = root.child("events");  // named: a path points at its parent
  const JsonPath path = events.at(position);
  PendingBlock &block = state_->open_block_at(index, stream::kContentBlockDelta, path);
  state_->apply_typed_delta(block, kind, text, path.child("delta"));
}

bool ResponseAssembler::has_open_blocks() const {
  return std::any_of(state_->blocks.begin(), state_->blocks.end(),
                     [](const PendingBlock &block) { return !block.ended; });
}

const json::object &ResponseAssembler::usage() const { return state_->usage; }

ChatResponse ResponseAssembler::finish() {
  if (!state_->keep_content)
    throw std::logic_error("ResponseAssembler::finish: this assembler keeps no content");
  for (const auto &block : state_->blocks)
    if (!block.ended)
      throw ModelError({}, "the stream ended with content block " + std::to_string(block.index) +
                               " still open (no content_block_end)");

  auto by_index = [](const PendingBlock &a, const PendingBlock &b) { return a.index < b.index; };
  if (!std::is_sorted(state_->blocks.begin(), state_->blocks.end(), by_index))
    std::stable_sort(state_->blocks.begin(), state_->blocks.end(), by_index);

  ChatResponse response;
  response.content.reserve(state_->blocks.size());
  for (auto &block : state_->blocks) response.content.push_back(std::move(*block.completed));
  response.tool_calls = collect_tool_calls(response.content);
  if (state_->has_usage) response.usage = detail::parse_usage(state_->usage, JsonPath().child("usage"));
  reset();
  return response;
}

void ResponseAssembler::reset() {
  state_->blocks.clear();
  state_->usage.clear();
  state_->has_usage = false;
  state_->events_fed = 0;
}

const ContentBlock *ResponseAssembler::State::feed(const json::object &event,
                                                   const JsonPath &path) {
  const json::value *type = event.if_contains("type");
  if (type == nullptr || !type->is_string()) path.fail("stream event has no type");
  const std::string_view event_type = type->get_string();
  if (event_type == stream::kContentBlockDelta) {  // by far the most frequent: test it first
    on_delta(event, path);
  } else if (event_type == stream::kContentBlockStart) {
    on_start(event, path);
  } else if (event_type == stream::kContentBlockEnd) {
    return on_end(event, path);
  } else if (event_type == stream::kUsage) {
    on_usage(event, path);
  }
  return nullptr;  // progress and event types of later versions carry nothing to assemble
}

std::uint64_t ResponseAssembler::State::read_index(const json::object &event,
                                                   const JsonPath &path) {
  const json::value *index = event.if_contains("index");
  if (index == nullptr) path.fail("stream event has no index");
  if (const auto *unsigned_index = index->if_uint64()) return *unsigned_index;
  if (const auto *signed_index = index->if_int64(); signed_index != nullptr && *signed_index >= 0)
    return static_cast<std::uint64_t>(*signed_index);
  path.child("index").fail("expected a non-negative integer");
}

PendingBlock *ResponseAssembler::State::find(std::uint64_t index) {
  // Streams have few blocks and deltas mostly target the newest one: search from the back.
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (it->index == index) return &*it;
  return nullptr;
}

PendingBlock &ResponseAssembler::State::open_block(const json::object &event,
                                                   std::string_view event_type,
                                                   const JsonPath &path) {
  return open_block_at(read_index(event, path), event_type, path);
}

PendingBlock &ResponseAssembler::State::open_block_at(std::uint64_t index,
                                                      std::string_view event_type,
                                                      const JsonPath &path) {
  PendingBlock *block = find(index);
  if (block == nullptr)
    path.fail(std::string(event_type) + " for block " + std::to_string(index) +
              ", which never started");
  if (block->ended)
    path.fail(std::string(event_type) + " for block " + std::to_string(index) +
              ", which already ended");
  return *block;
}

// The typed form of apply_delta: the same fit rules, the same accumulation.
void ResponseAssembler::State::apply_typed_delta(PendingBlock &block, amp_delta_kind kind,
                                                 std::string_view text, const JsonPath &path) {
  const bool fits = [&] {
    switch (block.kind) {
      case BlockKind::text: return kind == AMP_DELTA_TEXT;
      case BlockKind::thinking: return kind == AMP_DELTA_THINKING || kind == AMP_DELTA_SIGNATURE;
      case BlockKind::redacted_thinking: return kind == AMP_DELTA_REDACTED_THINKING;
      case BlockKind::reasoning: return false;  // reasoning deltas are structured: JSON only
      case BlockKind::tool_call: return kind == AMP_DELTA_TOOL_INPUT;
      case BlockKind::other: return true;
    }
    return false;
  }();
  if (!fits)
    path.fail("a typed delta of kind " + std::to_string(static_cast<int>(kind)) +
              " does not fit the " + std::string(string_field(block.partial, "type")) +
              " block " + std::to_string(block.index));
  if (!keep_content || block.kind == BlockKind::other) return;
  if (kind == AMP_DELTA_SIGNATURE) {
    block.signature.append(text);
    block.has_signature = true;
  } else {
    block.accumulated.append(text);
  }
}

void ResponseAssembler::State::on_start(const json::object &event, const JsonPath &path) {
  const std::uint64_t index = read_index(event, path);
  if (find(index) != nullptr)
    path.fail("content_block_start for block " + std::to_string(index) +
              ", which already started");
  const json::value *partial = event.if_contains("block");
  if (partial == nullptr || !partial->is_object())
    path.fail("content_block_start has no block object");

  PendingBlock block;
  block.index = index;
  block.partial = detail::owned_copy(partial->get_object());
  const std::string_view type = string_field(block.partial, "type");
  if (type.empty()) path.child("block").fail("content block has no type");
  block.kind = kind_of(type);
  // Providers may open a block with a first piece of its content (Anthropic sends "" fields).
  switch (block.kind) {
    case BlockKind::text: block.accumulated = string_field(block.partial, "text"); break;
    case BlockKind::thinking:
      block.accumulated = string_field(block.partial, "thinking");
      if (const json::value *signature = block.partial.if_contains("signature");
          signature != nullptr && signature->is_string()) {
        block.signature = signature->get_string();
        block.has_signature = true;
      }
      break;
    case BlockKind::redacted_thinking: block.accumulated = string_field(block.partial, "data"); break;
    case BlockKind::reasoning:
      append_reasoning_part(block.reasoning_content, block.partial.if_contains("content"),
                            path.child("block").child("content"));
      append_reasoning_part(block.reasoning_summary, block.partial.if_contains("summary"),
                            path.child("block").child("summary"));
      break;
    case BlockKind::tool_call:
    case BlockKind::other: break;
  }
  blocks.push_back(std::move(block));
}

void ResponseAssembler::State::on_delta(const json::object &event, const JsonPath &path) {
  PendingBlock &block = open_block(event, stream::kContentBlockDelta, path);
  const json::value *delta = event.if_contains("delta");
  if (delta == nullptr || !delta->is_object()) path.fail("content_block_delta has no delta object");
  apply_delta(block, delta->get_object(), path.child("delta"));
}

void ResponseAssembler::State::apply_delta(PendingBlock &block, const json::object &delta,
                                           const JsonPath &path) const {
  const std::string_view delta_type = string_field(delta, "type");
  if (delta_type.empty()) path.fail("delta has no type");
  // Appends delta[field] (a string) to `into`.
  auto append = [&](std::string_view field, std::string &into) {
    const json::value *piece = delta.if_contains(field);
    if (piece == nullptr || !piece->is_string())
      path.fail(std::string(delta_type) + " delta has no " + std::string(field) + " string");
    const json::string &text = piece->get_string();
    into.append(text.data(), text.size());
  };
  const bool fits = [&] {
    switch (block.kind) {
      case BlockKind::text: return delta_type == stream::kTextDelta;
      case BlockKind::thinking:
        return delta_type == stream::kThinkingDelta || delta_type == stream::kSignatureDelta;
      case BlockKind::redacted_thinking: return delta_type == stream::kRedactedThinkingDelta;
      case BlockKind::reasoning: return delta_type == stream::kReasoningDelta;
      case BlockKind::tool_call: return delta_type == stream::kToolInputDelta;
      case BlockKind::other: return true;
    }
    return false;
  }();
  if (!fits)
    path.fail("a " + std::string(delta_type) + " delta does not fit the " +
              std::string(string_field(block.partial, "type")) + " block " +
              std::to_string(block.index));

  if (!keep_content) return;
  switch (block.kind) {
    case BlockKind::text: append("text", block.accumulated); break;
    case BlockKind::thinking:
      if (delta_type == stream::kSignatureDelta) {
        append("signature", block.signature);
        block.has_signature = true;
      } else {
        append("thinking", block.accumulated);
      }
      break;
    case BlockKind::redacted_thinking: append("data", block.accumulated); break;
    case BlockKind::tool_call: append("partial_json", block.accumulated); break;
    case BlockKind::reasoning:
      append_reasoning_part(block.reasoning_content, delta.if_contains("content"),
                            path.child("content"));
      append_reasoning_part(block.reasoning_summary, delta.if_contains("summary"),
                            path.child("summary"));
      break;
    case BlockKind::other: break;  // unknown to us: its content_block_end must carry the block
  }
}

const ContentBlock *ResponseAssembler::State::on_end(const json::object &event,
                                                     const JsonPath &path) {
  PendingBlock &block = open_block(event, stream::kContentBlockEnd, path);
  block.ended = true;
  if (!keep_content) return nullptr;
  const json::value *complete_block = event.if_contains("block");
  if (complete_block != nullptr && !complete_block->is_null())
    block.completed = detail::parse_content_block(*complete_block, path.child("block"));
  else
    block.completed = complete(block, path);
  return &*block.completed;
}

ContentBlock ResponseAssembler::State::complete(PendingBlock &block, const JsonPath &path) {
  json::object &fields = block.partial;
  switch (block.kind) {
    case BlockKind::text: fields["text"] = block.accumulated; break;
    case BlockKind::thinking:
      fields["thinking"] = block.accumulated;
      if (block.has_signature) fields["signature"] = block.signature;
      break;
    case BlockKind::redacted_thinking: fields["data"] = block.accumulated; break;
    case BlockKind::reasoning:
      if (!block.reasoning_content.is_null()) fields["content"] = block.reasoning_content;
      if (!block.reasoning_summary.is_null()) fields["summary"] = block.reasoning_summary;
      break;
    case BlockKind::tool_call:
      // Without input deltas the start's input (often {}) stands.
      if (!is_blank(block.accumulated)) {
        json::error_code error;
        json::value input = json::parse(block.accumulated, error);
        if (error)
          path.fail("tool_call block " + std::to_string(block.index) +
                    ": its input is not valid JSON (" + error.message() + "): " +
                    excerpt(block.accumulated));
        if (!input.is_object())
          path.fail("tool_call block " + std::to_string(block.index) +
                    ": its input is not a JSON object: " + excerpt(block.accumulated));
        fields["input"] = std::move(input);
      }
      break;
    case BlockKind::other: break;
  }
  return detail::parse_content_block(fields, path);
}

void ResponseAssembler::State::on_usage(const json::object &event, const JsonPath &path) {
  const json::value *counts = event.if_contains("usage");
  if (counts == nullptr || !counts->is_object()) path.fail("usage event has no usage object");
  for (const auto &field : counts->get_object()) usage.insert_or_assign(field.key(), field.value());
  has_usage = true;
}

}  // namespace amplifier
