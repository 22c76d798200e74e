#include "responses_stream.hpp"

#include "amplifier/provider/stream_failure.hpp"
#include "amplifier/module_support/json_util.hpp"

#include "amplifier/provider/block_builder.hpp"
#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace openai_responses {

namespace json = boost::json;
namespace stream = amplifier::stream;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;

namespace {

using amplifier::provider::fail_stream;

using amplifier::module_support::array_at;
using amplifier::module_support::count_at;
using amplifier::module_support::object_at;
using amplifier::module_support::string_at;

constexpr std::int64_t kItemLevel = -1;  // the content index of reasoning and function calls

std::int64_t index_at(const json::object &event, std::string_view key) {
  return count_at(event, key).value_or(0);
}

// Makes `field` the final text. Returns what it gained when the final text extends it (to be
// emitted as one more delta), else nothing: a final text that differs replaces it silently,
// and the block's end carries it.
std::string_view extend_to(std::string &field, std::string_view final_text) {
  if (final_text == field) return {};
  const bool extends = final_text.substr(0, field.size()) == field;
  const std::size_t old_size = field.size();
  field.assign(final_text);
  if (!extends) return {};
  return std::string_view(field).substr(old_size);
}

bool is_delta_type(std::string_view type) {
  return type == "response.output_text.delta" || type == "response.function_call_arguments.delta" ||
         type == "response.reasoning_summary_text.delta" ||
         type == "response.reasoning_text.delta" || type == "response.refusal.delta";
}

// The events fast_delta handles: deltas, and the large created / in_progress of which only the
// id and model matter.
bool read_without_dom(std::string_view type) {
  return is_delta_type(type) || type == "response.created" || type == "response.in_progress";
}

json::array text_parts(std::string_view part_type, const std::vector<std::string> &texts) {
  json::array parts;
  for (const auto &text : texts) parts.push_back(json::object{{"type", part_type}, {"text", text}});
  return parts;
}

}  // namespace

amplifier::Usage usage_from(const json::object &usage) {
  amplifier::Usage out;
  out.input_tokens = count_at(usage, "input_tokens").value_or(0);
  out.output_tokens = count_at(usage, "output_tokens").value_or(0);
  out.total_tokens = count_at(usage, "total_tokens").value_or(out.input_tokens + out.output_tokens);
  if (const json::object *details = object_at(usage, "input_tokens_details")) {
    out.cache_read_tokens = count_at(*details, "cached_tokens");
    out.cache_write_tokens = count_at(*details, "cache_write_tokens");
  }
  if (const json::object *details = object_at(usage, "output_tokens_details"))
    out.reasoning_tokens = count_at(*details, "reasoning_tokens");
  return out;
}

void add_usage(amplifier::Usage &total, const amplifier::Usage &more) {
  total.input_tokens += more.input_tokens;
  total.output_tokens += more.output_tokens;
  total.total_tokens += more.total_tokens;
  auto add = [](std::optional<std::int64_t> &into, const std::optional<std::int64_t> &value) {
    if (value) into = into.value_or(0) + *value;
  };
  add(total.reasoning_tokens, more.reasoning_tokens);
  add(total.cache_read_tokens, more.cache_read_tokens);
  add(total.cache_write_tokens, more.cache_write_tokens);
}

ResponsesTranslator::DeltaFields::DeltaFields(amplifier::JsonFieldReader &reader)
    : type(reader.declare({"type"})),
      output_index(reader.declare({"output_index"})),
      content_index(reader.declare({"content_index"})),
      summary_index(reader.declare({"summary_index"})),
      delta(reader.declare({"delta"})),
      response_id(reader.declare({"response", "id"})),
      response_model(reader.declare({"response", "model"})) {}

ResponsesTranslator::ResponsesTranslator(EventSink sink, StreamErrorMapper map_error,
                                         DeltaSink deltas, std::size_t first_index)
    : sink_(std::move(sink)),
      map_error_(std::move(map_error)),
      deltas_(std::move(deltas)),
      first_index_(first_index),
      next_index_(first_index) {}

void ResponsesTranslator::on_sse_event(std::string_view event_type, std::string_view data) {
  if (fast_delta(event_type, data)) return;
  json::error_code ec;
  json::value parsed = json::parse(data, ec);
  if (ec)
    fail_stream("invalid JSON in a '" + std::string(event_type) +
                "' stream event: " + ec.message());
  if (!parsed.is_object())
    fail_stream("a '" + std::string(event_type) + "' stream event is not a JSON object");
  json::object &event = parsed.get_object();
  if (!event.contains("type")) event["type"] = event_type;
  on_event(event);
}

bool ResponsesTranslator::fast_delta(std::string_view event_type, std::string_view data) {
  // Read without a DOM: most events of a stream are deltas. Anything that is not plainly an
  // object takes the DOM path, which says what is wrong with it.
  const auto first = data.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || data[first] != '{') return false;
  // An event the `event:` line names as one the DOM path handles goes there directly, not
  // read twice (response.completed carries the whole response).
  if (!event_type.empty() && event_type != "message" && !read_without_dom(event_type))
    return false;
  if (!reader_.read(data))
    fail_stream("invalid JSON in a '" + std::string(event_type) +
                "' stream event: " + std::string(reader_.error()));
  const std::string_view type =
      reader_.has(fields_.type) ? reader_.string(fields_.type) : event_type;
  if (finished_) return false;
  if (type == "response.created" || type == "response.in_progress") {
    result_.response_id = reader_.string(fields_.response_id);
    result_.model = reader_.string(fields_.response_model);
    return true;
  }
  if (!is_delta_type(type) ||
      reader_.kind(fields_.delta) != amplifier::JsonFieldReader::Kind::string)
    return false;
  apply_delta(type, reader_.integer(fields_.output_index).value_or(0),
              reader_.integer(fields_.content_index).value_or(0),
              reader_.integer(fields_.summary_index).value_or(0), reader_.string(fields_.delta));
  return true;
}

void ResponsesTranslator::on_event(const json::object &event) {
  if (finished_) return;  // nothing may follow response.completed
  const std::string_view type = string_at(event, "type");
  if (is_delta_type(type))
    return apply_delta(type, index_at(event, "output_index"), index_at(event, "content_index"),
                       index_at(event, "summary_index"), string_at(event, "delta"));
  if (type == "error" || type == "response.failed")
    throw KernelException(map_error_(json::serialize(event)));
  if (type == "response.created" || type == "response.in_progress") {
    if (const json::object *response = object_at(event, "response")) {
      result_.response_id = string_at(*response, "id");
      result_.model = string_at(*response, "model");
    }
    return;
  }
  if (type == "response.output_item.added") return item_added(event);
  if (type == "response.content_part.added") return part_added(event);
  if (type == "response.reasoning_summary_part.added") {
    // Opens the part (a blank line between parts, live); its text follows as deltas.
    return apply_delta("response.reasoning_summary_text.delta", index_at(event, "output_index"), 0,
                       index_at(event, "summary_index"), {});
  }
  if (type == "response.output_text.done") return text_done(event, "text");
  if (type == "response.refusal.done") return text_done(event, "refusal");
  if (type == "response.reasoning_summary_text.done" || type == "response.reasoning_text.done")
    return summary_done(event);
  if (type == "response.function_call_arguments.done") return arguments_done(event);
  if (type == "response.content_part.done") return part_done(event);
  if (type == "response.output_item.done") return item_done(event);
  if (type == "response.completed" || type == "response.incomplete")
    return response_finished(event);
  // Summary part done, annotations, server-side tool progress, newer event types: nothing to do.
}

void ResponsesTranslator::on_response(const json::object &response) {
  result_.response_id = string_at(response, "id");
  result_.model = string_at(response, "model");
  if (string_at(response, "status") == "failed")
    throw KernelException(map_error_(json::serialize(json::object{{"response", response}})));
  if (const json::array *output = array_at(response, "output")) {
    std::int64_t output_index = 0;
    for (const json::value &item : *output) {
      if (!item.is_object()) fail_stream("an output item of the response is not an object");
      replay_item(output_index++, item.get_object());
    }
  }
  response_finished(json::object{{"response", response}});
}

ResponsesTranslator::OpenBlock *ResponsesTranslator::find(Key key) {
  auto it = open_.find(key);
  return it == open_.end() ? nullptr : &it->second;
}

ResponsesTranslator::OpenBlock &ResponsesTranslator::open(Key key, BlockKind kind,
                                                          const json::object *item) {
  if (OpenBlock *existing = find(key)) {
    if (existing->kind != kind)
      fail_stream("output item " + std::to_string(key.first) + " changed its type mid-stream");
    return *existing;
  }
  OpenBlock block;
  block.kind = kind;
  block.index = next_index_++;
  if (item) {
    block.item_id = string_at(*item, "id");
    if (const json::value *encrypted = item->if_contains("encrypted_content"))
      block.encrypted_content = *encrypted;
    block.call_id = string_at(*item, "call_id");
    block.name = string_at(*item, "name");
  }
  switch (kind) {
    case BlockKind::reasoning:
      emit(stream::block_start(block.index, json::object{{"type", "reasoning"}}));
      break;
    case BlockKind::tool_call:
      emit(stream::tool_call_start(block.index, block.call_id, block.name));
      break;
    case BlockKind::text:
      emit(stream::text_start(block.index));
      break;
  }
  return open_.emplace(key, std::move(block)).first->second;
}

ResponsesTranslator::OpenBlock &ResponsesTranslator::text_part(std::int64_t output_index,
                                                               std::int64_t content_index,
                                                               bool refusal) {
  OpenBlock &block = open({output_index, content_index}, BlockKind::text, nullptr);
  if (refusal) {
    block.refusal = true;
    result_.refused = true;
  }
  return block;
}

void ResponsesTranslator::apply_delta(std::string_view type, std::int64_t output_index,
                                      std::int64_t content_index, std::int64_t summary_index,
                                      std::string_view delta) {
  if (type == "response.output_text.delta" || type == "response.refusal.delta") {
    if (ended_.contains({output_index, content_index})) return;  // late: the part's end has it
    OpenBlock &block = text_part(output_index, content_index, type == "response.refusal.delta");
    if (delta.empty()) return;
    block.text += delta;
    return emit_delta(block.index, AMP_DELTA_TEXT, delta);
  }
  const bool arguments = type == "response.function_call_arguments.delta";
  OpenBlock *block = find({output_index, kItemLevel});
  if (!block || block->kind != (arguments ? BlockKind::tool_call : BlockKind::reasoning))
    fail_stream(std::string(type) + " for output item " + std::to_string(output_index) +
                ", which is not an open " + (arguments ? "function call" : "reasoning item"));
  if (arguments) {
    if (delta.empty()) return;
    block->text += delta;
    return emit_delta(block->index, AMP_DELTA_TOOL_INPUT, delta);
  }
  const bool summary = type == "response.reasoning_summary_text.delta";
  std::vector<std::string> &parts = summary ? block->summary : block->reasoning_text;
  const auto slot = static_cast<std::size_t>(summary ? summary_index : content_index);
  if (slot > 1000) fail_stream("a reasoning part index of " + std::to_string(slot));
  if (parts.size() <= slot) {
    // A new part: live readers get a blank line between parts.
    if (!parts.empty() && !parts.back().empty()) emit_reasoning(block->index, "\n\n", summary);
    parts.resize(slot + 1);
  }
  if (delta.empty()) return;
  parts[slot] += delta;
  emit_reasoning(block->index, delta, summary);
}

void ResponsesTranslator::item_added(const json::object &event) {
  const json::object *item = object_at(event, "item");
  if (!item) fail_stream("response.output_item.added has no item");
  const std::string_view type = string_at(*item, "type");
  const Key key{index_at(event, "output_index"), kItemLevel};
  if (type == "reasoning") open(key, BlockKind::reasoning, item);
  if (type == "function_call") {
    OpenBlock &block = open(key, BlockKind::tool_call, item);
    if (auto arguments = string_at(*item, "arguments"); !arguments.empty())
      if (auto gained = extend_to(block.text, arguments); !gained.empty())
        emit_delta(block.index, AMP_DELTA_TOOL_INPUT, gained);
  }
  // Messages open a block per content part; other item types are kept whole at their end.
}

void ResponsesTranslator::part_added(const json::object &event) {
  const json::object *part = object_at(event, "part");
  const std::string_view type = part ? string_at(*part, "type") : std::string_view();
  if (type != "output_text" && type != "refusal") return;
  const Key key{index_at(event, "output_index"), index_at(event, "content_index")};
  if (ended_.contains(key)) return;
  OpenBlock &block = text_part(key.first, key.second, type == "refusal");
  const std::string_view text = string_at(*part, type == "refusal" ? "refusal" : "text");
  if (auto gained = extend_to(block.text, text); !gained.empty())
    emit_delta(block.index, AMP_DELTA_TEXT, gained);
}

void ResponsesTranslator::text_done(const json::object &event, std::string_view field) {
  const Key key{index_at(event, "output_index"), index_at(event, "content_index")};
  if (ended_.contains(key)) return;
  OpenBlock &block = text_part(key.first, key.second, field == "refusal");
  if (auto gained = extend_to(block.text, string_at(event, field)); !gained.empty())
    emit_delta(block.index, AMP_DELTA_TEXT, gained);
}

void ResponsesTranslator::summary_done(const json::object &event) {
  const bool summary = string_at(event, "type") == "response.reasoning_summary_text.done";
  const std::int64_t slot = index_at(event, summary ? "summary_index" : "content_index");
  const std::int64_t output_index = index_at(event, "output_index");
  // Make sure the part exists (a stream whose deltas were cut), then let the final text win.
  apply_delta(summary ? "response.reasoning_summary_text.delta" : "response.reasoning_text.delta",
              output_index, slot, slot, {});
  OpenBlock &block = *find({output_index, kItemLevel});
  std::string &part = (summary ? block.summary : block.reasoning_text)[slot];
  if (auto gained = extend_to(part, string_at(event, "text")); !gained.empty())
    emit_reasoning(block.index, gained, summary);
}

void ResponsesTranslator::arguments_done(const json::object &event) {
  OpenBlock *block = find({index_at(event, "output_index"), kItemLevel});
  if (!block || block->kind != BlockKind::tool_call)
    fail_stream(
        "response.function_call_arguments.done for an output item that is not an open "
        "function call");
  if (auto gained = extend_to(block->text, string_at(event, "arguments")); !gained.empty())
    emit_delta(block->index, AMP_DELTA_TOOL_INPUT, gained);
}

void ResponsesTranslator::part_done(const json::object &event) {
  const Key key{index_at(event, "output_index"), index_at(event, "content_index")};
  OpenBlock *block = find(key);
  const json::object *part = object_at(event, "part");
  if (!block || !part) return;  // a part type we do not keep, or ended already
  if (const json::value *annotations = part->if_contains("annotations"))
    block->annotations = *annotations;
  if (auto gained = extend_to(block->text, string_at(*part, block->refusal ? "refusal" : "text"));
      !gained.empty())
    emit_delta(block->index, AMP_DELTA_TEXT, gained);
  end_block(key);
}

void ResponsesTranslator::item_done(const json::object &event) {
  const json::object *item = object_at(event, "item");
  if (!item) fail_stream("response.output_item.done has no item");
  replay_item(index_at(event, "output_index"), *item);
}

// The complete item, whether it ends a streamed item or stands for one never streamed: what
// the item holds beyond what arrived is emitted, then the blocks end.
void ResponsesTranslator::replay_item(std::int64_t output_index, const json::object &item) {
  const std::string_view type = string_at(item, "type");
  const Key key{output_index, kItemLevel};
  if (type == "reasoning") {
    OpenBlock &block = open(key, BlockKind::reasoning, &item);
    // The last encrypted_content wins: it may change between added, done and completed.
    if (const json::value *encrypted = item.if_contains("encrypted_content"))
      block.encrypted_content = *encrypted;
    auto replay_parts = [&](std::string_view field, bool summary) {
      const json::array *parts = array_at(item, field);
      if (!parts) return;
      for (std::size_t i = 0; i < parts->size(); ++i) {
        if (!(*parts)[i].is_object()) continue;
        apply_delta(
            summary ? "response.reasoning_summary_text.delta" : "response.reasoning_text.delta",
            output_index, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i), {});
        std::string &text = (summary ? block.summary : block.reasoning_text)[i];
        if (auto gained = extend_to(text, string_at((*parts)[i].get_object(), "text"));
            !gained.empty())
          emit_reasoning(block.index, gained, summary);
      }
    };
    replay_parts("summary", true);
    replay_parts("content", false);
    return end_block(key);
  }
  if (type == "function_call") {
    OpenBlock &block = open(key, BlockKind::tool_call, &item);
    if (auto gained = extend_to(block.text, string_at(item, "arguments")); !gained.empty())
      emit_delta(block.index, AMP_DELTA_TOOL_INPUT, gained);
    return end_block(key);
  }
  if (type == "message") {
    const json::array *content = array_at(item, "content");
    for (std::size_t i = 0; content && i < content->size(); ++i) {
      if (!(*content)[i].is_object()) continue;
      const json::object &part = (*content)[i].get_object();
      const std::string_view part_type = string_at(part, "type");
      if (part_type != "output_text" && part_type != "refusal") continue;
      const Key part_key{output_index, static_cast<std::int64_t>(i)};
      if (ended_.contains(part_key)) continue;
      OpenBlock &block = text_part(output_index, part_key.second, part_type == "refusal");
      if (const json::value *annotations = part.if_contains("annotations"))
        block.annotations = *annotations;
      const std::string_view text = string_at(part, part_type == "refusal" ? "refusal" : "text");
      if (auto gained = extend_to(block.text, text); !gained.empty())
        emit_delta(block.index, AMP_DELTA_TEXT, gained);
      end_block(part_key);
    }
    return;
  }
  // Server-side tool items (web_search_call, ...) and newer types: kept whole, as sent.
  const std::size_t index = next_index_++;
  amplifier::ContentBlock block = amplifier::UnknownBlock{item};
  emit(stream::block_start(index, item));
  sink_.block_end(index, block);
  blocks_.emplace(index, std::move(block));
}

void ResponsesTranslator::end_block(Key key) {
  auto it = open_.find(key);
  if (it == open_.end()) return;
  OpenBlock block = std::move(it->second);
  open_.erase(it);
  ended_.insert(key);
  amplifier::ContentBlock complete = finished_block(block);
  sink_.block_end(block.index, complete);
  blocks_.emplace(block.index, std::move(complete));  // the text's one copy, kept here
}

amplifier::ContentBlock ResponsesTranslator::finished_block(OpenBlock &block) {
  switch (block.kind) {
    case BlockKind::text: {
      amplifier::TextBlock text{std::move(block.text), std::nullopt, {}};
      if (block.refusal) text.extra["refusal"] = true;
      if (block.annotations.is_array() && !block.annotations.get_array().empty())
        text.extra["annotations"] = std::move(block.annotations);
      return text;
    }
    case BlockKind::reasoning: {
      amplifier::ReasoningBlock reasoning;
      if (!block.reasoning_text.empty())
        reasoning.content = text_parts("reasoning_text", block.reasoning_text);
      reasoning.summary = text_parts("summary_text", block.summary);
      reasoning.extra["id"] = block.item_id;
      if (block.encrypted_content.is_string())
        reasoning.extra["encrypted_content"] = std::move(block.encrypted_content);
      if (!block.item_id.empty()) reasoning_by_id_[block.item_id] = block.index;
      return reasoning;
    }
    case BlockKind::tool_call:
      break;
  }
  amplifier::ToolCallBlock call = amplifier::provider::tool_call_from_arguments(
      std::move(block.call_id), std::move(block.name), block.text);
  if (!block.item_id.empty()) call.extra["item_id"] = block.item_id;
  return call;
}

void ResponsesTranslator::response_finished(const json::object &event) {
  const json::object *response = object_at(event, "response");
  if (!response) fail_stream(std::string(string_at(event, "type")) + " has no response");
  const json::array *output = array_at(*response, "output");
  // A stream that carried no items (a proxy that forwards only the final event) still yields
  // its output.
  if (!content_started() && open_.empty() && output) {
    std::int64_t output_index = 0;
    for (const json::value &item : *output)
      if (item.is_object()) replay_item(output_index++, item.get_object());
  }
  while (!open_.empty()) end_block(open_.begin()->first);
  // encrypted_content as the final response has it: the last value wins.
  for (const json::value &item : output ? *output : json::array{}) {
    if (!item.is_object() || string_at(item.get_object(), "type") != "reasoning") continue;
    auto it = reasoning_by_id_.find(std::string(string_at(item.get_object(), "id")));
    const json::value *encrypted = item.get_object().if_contains("encrypted_content");
    if (it == reasoning_by_id_.end() || !encrypted || !encrypted->is_string()) continue;
    if (auto *block = std::get_if<amplifier::ReasoningBlock>(&blocks_.at(it->second)))
      block->extra["encrypted_content"] = *encrypted;
  }
  if (auto id = string_at(*response, "id"); !id.empty()) result_.response_id = id;
  if (auto model = string_at(*response, "model"); !model.empty()) result_.model = model;
  result_.status = string_at(*response, "status");
  if (result_.status.empty())
    result_.status = string_at(event, "type") == "response.incomplete" ? "incomplete" : "completed";
  if (const json::object *details = object_at(*response, "incomplete_details"))
    result_.incomplete_reason = string_at(*details, "reason");
  if (const json::object *usage = object_at(*response, "usage")) {
    result_.usage = usage_from(*usage);
    emit(stream::usage(*result_.usage));
  }
  if (const json::value *filters = response->if_contains("content_filters"))
    result_.content_filters = *filters;
  finished_ = true;
}

RoundResult ResponsesTranslator::take_result() {
  if (!finished_) fail_stream("the stream ended before response.completed");
  RoundResult result = std::move(result_);
  result.content.reserve(blocks_.size());
  for (auto &[index, block] : blocks_) result.content.push_back(std::move(block));
  blocks_.clear();
  return result;
}

void ResponsesTranslator::emit(const json::object &event) { sink_(event); }

void ResponsesTranslator::emit_delta(std::size_t index, amp_delta_kind kind,
                                     std::string_view text) {
  if (deltas_) return deltas_(static_cast<std::uint32_t>(index), kind, text);
  emit(kind == AMP_DELTA_TEXT ? stream::text_delta(index, text)
                              : stream::tool_input_delta(index, text));
}

void ResponsesTranslator::emit_reasoning(std::size_t index, std::string_view text, bool summary) {
  // Reasoning deltas are structured (content or summary): they travel as JSON events.
  emit(summary ? stream::reasoning_delta(index, nullptr, json::string(text))
               : stream::reasoning_delta(index, json::string(text), nullptr));
}

}  // namespace openai_responses
