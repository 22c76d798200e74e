#include "response_planner.hpp"

#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/uuid/random_generator.hpp>

#include <algorithm>
#include <cstdio>

namespace provider_mock {

namespace json = boost::json;
using amplifier::ErrorKind;
using amplifier::KernelError;

// The blocks of one response, before they are cut into deltas.
struct ResponsePlanner::Content {
  std::optional<std::string> thinking;
  std::optional<std::string> signature;
  std::optional<std::string> text;
  std::vector<amplifier::ToolCallBlock> tool_calls;
  std::optional<KernelError> error;
  std::chrono::milliseconds delay{0};
  std::optional<amplifier::Usage> usage;  // scripted; else estimated
  json::object metadata;
};

namespace {
constexpr std::string_view kSignaturePrefix = "mock-signature-";
}

std::string mock_signature(std::string_view thinking) {
  // FNV-1a: stable across runs and builds, unlike std::hash.
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : thinking) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(kSignaturePrefix) + hex;
}

std::vector<std::string_view> split_utf8(std::string_view text, std::size_t chars_per_piece) {
  std::vector<std::string_view> pieces;
  const std::size_t per_piece = std::max<std::size_t>(1, chars_per_piece);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = start;
    for (std::size_t chars = 0; chars < per_piece && end < text.size(); ++chars) {
      ++end;  // the lead byte, then its continuation bytes (10xxxxxx)
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    }
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  return pieces;
}

std::int64_t estimate_tokens(std::string_view text) {
  std::int64_t code_points = 0;
  for (unsigned char c : text) code_points += (c & 0xC0) != 0x80;
  return (code_points + 3) / 4;
}

namespace {

// Collects the stream events of one response and feeds each to a ResponseAssembler, so the
// terminal ChatResponse is built from exactly what was streamed (and every end block is the
// assembler's completion of its deltas).
class EventRecorder {
 public:
  void emit(const json::object &event) {
    assembler_.feed(event);
    events_.push_back(StreamStep{json::serialize(event), 0, AMP_DELTA_TEXT, {}});
  }
  void delta(std::size_t index, amp_delta_kind kind, std::string_view text) {
    assembler_.feed_delta(index, kind, text);
    events_.push_back(StreamStep{{}, static_cast<std::uint32_t>(index), kind, std::string(text)});
  }
  void end_block(std::size_t index) {
    const amplifier::ContentBlock *block = assembler_.feed(amplifier::stream::block_end(index));
    events_.push_back(
        StreamStep{json::serialize(amplifier::stream::block_end(index, *block)), 0, AMP_DELTA_TEXT, {}});
  }
  amplifier::ChatResponse finish() { return assembler_.finish(); }
  std::vector<StreamStep> take_events() { return std::move(events_); }

 private:
  amplifier::ResponseAssembler assembler_;
  std::vector<StreamStep> events_;
};

void stream_thinking(EventRecorder &out, std::size_t index, std::string_view thinking,
                     const std::optional<std::string> &signature, std::size_t chunk) {
  namespace s = amplifier::stream;
  out.emit(s::thinking_start(index));
  for (auto piece : split_utf8(thinking, chunk)) out.delta(index, AMP_DELTA_THINKING, piece);
  if (signature) out.delta(index, AMP_DELTA_SIGNATURE, *signature);
  out.end_block(index);
}

void stream_text(EventRecorder &out, std::size_t index, std::string_view text,
                 std::size_t chunk) {
  namespace s = amplifier::stream;
  out.emit(s::text_start(index));
  for (auto piece : split_utf8(text, chunk)) out.delta(index, AMP_DELTA_TEXT, piece);
  out.end_block(index);
}

void stream_tool_call(EventRecorder &out, std::size_t index,
                      const amplifier::ToolCallBlock &call, std::size_t chunk) {
  namespace s = amplifier::stream;
  out.emit(s::tool_call_start(index, call.id, call.name));
  const std::string input_json = json::serialize(call.input);
  for (auto piece : split_utf8(input_json, chunk)) out.delta(index, AMP_DELTA_TOOL_INPUT, piece);
  out.end_block(index);
}

amp_status status_for(const KernelError &error) {
  switch (error.kind) {
    case ErrorKind::cancelled: return AMP_CANCELLED;
    case ErrorKind::invalid_request: return AMP_INVALID_ARGUMENT;
    default: return AMP_ERROR;
  }
}


// The last user message's text: what the default behaviour talks about.
std::string last_prompt(const std::vector<amplifier::Message> &messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->role == amplifier::Role::user && !it->text().empty()) return it->text();
  }
  return "";
}

const amplifier::ToolResultBlock *tool_result_block(const amplifier::Message &message) {
  if (!message.has_block_content()) return nullptr;
  for (const auto &block : std::get<std::vector<amplifier::ContentBlock>>(message.content)) {
    if (const auto *result = amplifier::block_as<amplifier::ToolResultBlock>(block)) return result;
  }
  return nullptr;
}

bool request_only(const amplifier::Message &message) {
  if (!message.metadata) return false;
  const json::value *from = message.metadata->if_contains("ephemeral_from");
  return from && from->is_number() && from->to_number<double>() == 0;
}

bool is_tool_result(const amplifier::Message &message) {
  return message.role == amplifier::Role::tool || tool_result_block(message) != nullptr;
}

// A tool output as readable text: strings as they are, a ToolResult's "output" when it is
// one, anything else as JSON.
std::string output_text(const json::value &output) {
  if (output.is_string()) return std::string(output.get_string());
  if (output.is_object()) {
    if (const auto *inner = output.get_object().if_contains("output"); inner && inner->is_string())
      return std::string(inner->get_string());
  }
  return json::serialize(output);
}

std::string tool_result_text(const amplifier::Message &message) {
  if (const auto *block = tool_result_block(message)) return output_text(block->output);
  if (message.has_block_content()) return message.text();
  // A tool message's string content is often the serialized ToolResult: unwrap it if so.
  const std::string &text = std::get<std::string>(message.content);
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  return !ec && parsed.is_object() ? output_text(parsed) : text;
}

std::optional<std::string> tool_call_id_of(const amplifier::Message &message) {
  if (message.tool_call_id) return message.tool_call_id;
  if (const auto *block = tool_result_block(message)) return block->tool_call_id;
  return std::nullopt;
}

// The name of the tool that produced result `id`, from the assistant's earlier tool calls.
std::string tool_name_for(const std::vector<amplifier::Message> &messages,
                          const std::optional<std::string> &id) {
  for (const auto &message : messages) {
    if (!message.has_block_content()) continue;
    for (const auto &block : std::get<std::vector<amplifier::ContentBlock>>(message.content)) {
      const auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block);
      if (call && id && call->id == *id) return call->name;
    }
  }
  return "the tool";
}

// The first `max_lines` lines of `text`, each quoted, with a note of how many were left out.
std::string quote_first_lines(std::string_view text, std::size_t max_lines) {
  std::string quoted;
  std::size_t shown = 0, total = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (shown < max_lines) {
      quoted += "> " + std::string(text.substr(start, end - start)) + "\n";
      ++shown;
    }
    ++total;
    start = end + 1;
  }
  if (total == 0) return "> (no output)\n";
  if (total > shown) quoted += "(" + std::to_string(total - shown) + " more lines)\n";
  return quoted;
}

std::string excerpt(std::string_view text, std::size_t max_chars) {
  auto pieces = split_utf8(text, max_chars);
  if (pieces.size() <= 1) return std::string(text);
  return std::string(pieces.front()) + "...";
}

}  // namespace

namespace {
std::string random_tool_call_id_prefix() {
  // Four bytes of a UUID drawn from the operating system's random source.
  const boost::uuids::uuid random = boost::uuids::random_generator()();
  char hex[9];
  std::snprintf(hex, sizeof hex, "%02x%02x%02x%02x", random.data[0], random.data[1], random.data[2],
                random.data[3]);
  return std::string("call_mock_") + hex + "_";
}
}  // namespace

ResponsePlanner::ResponsePlanner(MockConfig config, std::string provider_name)
    : config_(std::move(config)),
      provider_name_(std::move(provider_name)),
      tool_call_id_prefix_(random_tool_call_id_prefix()) {}

PlannedCall ResponsePlanner::plan(amp_call_id call, std::string_view request_json) {
  amplifier::ChatRequest request;
  try {
    request = amplifier::from_json<amplifier::ChatRequest>(amplifier::parse_json(request_json));
  } catch (const amplifier::ModelError &e) {
    return error_call(KernelError::make(ErrorKind::invalid_request,
                                        std::string("invalid ChatRequest: ") + e.what()),
                      {});
  }
  if (auto problem = signature_problem(request)) {
    return error_call(KernelError::make(ErrorKind::invalid_request, *problem), {});
  }

  std::optional<std::size_t> script_index;
  {
    std::lock_guard lock(mutex_);
    if (next_response_ < config_.responses.size()) script_index = next_response_++;
  }
  Content content = script_index ? scripted_content(*script_index, call)
                                 : default_content(request, call);
  if (content.thinking && content.signature) remember_signature(*content.thinking, *content.signature);
  return render(content, request_json);
}

ResponsePlanner::Content ResponsePlanner::scripted_content(std::size_t index,
                                                           amp_call_id call) const {
  const ScriptedResponse &script = config_.responses[index];
  Content content;
  content.thinking = script.thinking;
  content.signature = script.signature;
  content.text = script.text;
  content.error = script.error;
  content.delay = script.delay;
  content.usage = script.usage;
  for (std::size_t i = 0; i < script.tool_calls.size(); ++i) {
    const auto &scripted = script.tool_calls[i];
    amplifier::ToolCallBlock block;
    block.id = scripted.id.value_or(tool_call_id_prefix_ + std::to_string(call) + "_" + std::to_string(i));
    block.name = scripted.name;
    block.input = scripted.input;
    content.tool_calls.push_back(std::move(block));
  }
  content.metadata = {{"source", "script"}, {"script_index", index}};
  return content;
}

ResponsePlanner::Content ResponsePlanner::default_content(const amplifier::ChatRequest &request,
                                                          amp_call_id call) const {
  Content content;
  content.metadata = {{"source", "default"}};
  const auto &messages = request.messages;
  const std::string prompt = last_prompt(messages);
  const bool offers_tools = request.tools && !request.tools->empty();

  // While tools are offered, a message only this request carries (an ephemeral injection,
  // metadata.ephemeral_from 0: a mode's reminder) is context, not what the model answers; the
  // loop's final call without tools still echoes its reminder.
  auto last = messages.rbegin();
  while (offers_tools && last != messages.rend() && request_only(*last)) ++last;
  if (last != messages.rend() && is_tool_result(*last)) {
    const auto &result = *last;
    const std::string name = tool_name_for(messages, tool_call_id_of(result));
    const std::string output = tool_result_text(result);
    content.thinking = "The tool " + name + " returned " + std::to_string(output.size()) +
                       " bytes; I will report the first lines.";
    content.text = "Here is what " + name + " returned:\n" + quote_first_lines(output, 5);
  } else if (offers_tools) {
    const auto &tools = *request.tools;
    auto chosen = std::find_if(tools.begin(), tools.end(),
                               [](const auto &t) { return t.name == "list_directory"; });
    amplifier::ToolCallBlock block;
    block.id = tool_call_id_prefix_ + std::to_string(call);
    if (chosen != tools.end()) {
      block.name = chosen->name;
      block.input = {{"path", "."}};
    } else {
      block.name = tools.front().name;
    }
    content.thinking = "The user asked: \"" + excerpt(prompt, 80) + "\". I will call " +
                       block.name + " first.";
    content.text = "Let me use " + block.name + ".";
    content.tool_calls.push_back(std::move(block));
  } else {
    content.thinking = "The user said \"" + excerpt(prompt, 80) +
                       "\" and no tools are offered, so I answer directly.";
    content.text = prompt.empty() ? std::string("Mock response: there was no prompt to echo.")
                                  : "Mock response to: " + prompt;
  }
  content.signature = mock_signature(*content.thinking);
  return content;
}

PlannedCall ResponsePlanner::render(const Content &content, std::string_view request_json) const {
  const std::size_t chunk = config_.chunk_size;
  EventRecorder recorder;
  std::size_t index = 0;
  std::string generated;  // every generated character, for the output token estimate
  if (content.thinking) {
    stream_thinking(recorder, index++, *content.thinking, content.signature, chunk);
    generated += *content.thinking;
  }
  if (content.text) {
    stream_text(recorder, index++, *content.text, chunk);
    generated += *content.text;
  }
  for (const auto &call : content.tool_calls) {
    stream_tool_call(recorder, index++, call, chunk);
    generated += call.name + json::serialize(call.input);
  }

  if (content.error) {
    PlannedCall planned = error_call(*content.error, content.delay);
    planned.events = recorder.take_events();  // a stream that breaks after its content
    return planned;
  }

  amplifier::Usage usage;
  if (content.usage) {
    usage = *content.usage;
  } else {
    usage.input_tokens = estimate_tokens(request_json);
    usage.output_tokens = estimate_tokens(generated);
    usage.total_tokens = usage.input_tokens + usage.output_tokens;
  }
  recorder.emit(amplifier::stream::usage(usage));

  amplifier::ChatResponse response = recorder.finish();
  response.finish_reason = content.tool_calls.empty() ? "end_turn" : "tool_use";
  json::object metadata = content.metadata;
  metadata["provider"] = provider_name_;
  metadata["model"] = config_.model;
  response.metadata = std::move(metadata);

  PlannedCall planned;
  planned.first_delay = content.delay;
  planned.events = recorder.take_events();
  planned.status = AMP_OK;
  planned.terminal_payload = json::serialize(amplifier::to_json(response));
  return planned;
}

PlannedCall ResponsePlanner::error_call(KernelError error, std::chrono::milliseconds delay) const {
  if (!error.provider) error.provider = provider_name_;
  if (!error.model) error.model = config_.model;
  PlannedCall planned;
  planned.first_delay = delay;
  planned.status = status_for(error);
  planned.terminal_payload = json::serialize(amplifier::to_json(error));
  return planned;
}

std::optional<std::string> ResponsePlanner::signature_problem(
    const amplifier::ChatRequest &request) const {
  std::lock_guard lock(mutex_);
  for (std::size_t m = 0; m < request.messages.size(); ++m) {
    const auto &message = request.messages[m];
    if (!message.has_block_content()) continue;
    const auto &blocks = std::get<std::vector<amplifier::ContentBlock>>(message.content);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const auto *thinking = amplifier::block_as<amplifier::ThinkingBlock>(blocks[b]);
      if (!thinking) continue;
      const std::string where = "messages[" + std::to_string(m) + "].content[" +
                                std::to_string(b) + "]";
      const auto &signature = thinking->signature;
      // A mock-made signature covers its text: a changed text or signature no longer matches.
      if (signature && signature->starts_with(kSignaturePrefix) &&
          *signature != mock_signature(thinking->thinking)) {
        return where + ": invalid signature in thinking block (text or signature was altered)";
      }
      auto issued = issued_signatures_.find(thinking->thinking);
      if (issued == issued_signatures_.end()) continue;
      if (!signature) {
        return where + ": thinking block lost its signature (it must be sent back unchanged)";
      }
      const auto &valid = issued->second;
      if (std::find(valid.begin(), valid.end(), *signature) == valid.end()) {
        return where + ": invalid signature in thinking block (it must be sent back unchanged)";
      }
    }
  }
  return std::nullopt;
}

void ResponsePlanner::remember_signature(std::string_view thinking, std::string_view signature) {
  std::lock_guard lock(mutex_);
  auto &signatures = issued_signatures_[std::string(thinking)];
  if (std::find(signatures.begin(), signatures.end(), signature) == signatures.end())
    signatures.emplace_back(signature);
}

}  // namespace provider_mock
