#include "bench_sinks.hpp"

#include "chat_stream.hpp"
#include "gemini_stream.hpp"
#include "ollama_stream.hpp"
#include "responses_stream.hpp"
#include "stream_mapping.hpp"

#include "amplifier/errors.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace amplifier::bench {

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A recorded .ndjson of Responses events (several streams one after the other, each starting
// with response.created) as the text/event-stream bodies the API sent.
std::vector<Stream> ndjson_as_sse(std::string_view name) {
  std::vector<Stream> streams;
  std::istringstream in(read_file(fs::path(AMP_VENDOR_FIXTURE_DIR) / name));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const boost::json::value event = boost::json::parse(line);
    const std::string type(event.at("type").as_string());
    if (type == "response.created" || streams.empty())
      streams.push_back({std::string(name) + " #" + std::to_string(streams.size() + 1), {}});
    streams.back().bytes += "event: " + type + "\ndata: " + line + "\n\n";
  }
  return streams;
}

// The steady state of a long Anthropic answer: `deltas` short text deltas, in the live API's
// framing (its JSON padded with spaces before the closing brace).
Stream anthropic_steady_state(int deltas) {
  std::string body =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
      "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],"
      "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
  for (int i = 0; i < deltas; ++i)
    body +=
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"text_delta\",\"text\":\" token\"}             }\n\n";
  body +=
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"},\"usage\":{\"output_tokens\":" +
      std::to_string(deltas) +
      "}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  return {"steady state: 10,000 text deltas (99.95% of events)", std::move(body)};
}

// The same for the Responses API, as the live API frames a delta: sequence number, item id,
// logprobs and the obfuscation padding.
Stream responses_steady_state(int deltas) {
  std::string body =
      "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
      "\"response\":{\"id\":\"resp_1\",\"model\":\"gpt-5\",\"status\":\"in_progress\","
      "\"output\":[]}}\n\n"
      "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","
      "\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":"
      "\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}}\n\n"
      "event: response.content_part.added\ndata: {\"type\":\"response.content_part.added\","
      "\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"
      "\"part\":{\"type\":\"output_text\",\"annotations\":[],\"text\":\"\"}}\n\n";
  for (int i = 0; i < deltas; ++i)
    body +=
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
        "\"sequence_number\":" +
        std::to_string(i + 3) +
        ",\"item_id\":\"msg_01830d662ab3856501693c32183a488190a612c410a0a39823\","
        "\"output_index\":0,\"content_index\":0,\"delta\":\" token\",\"logprobs\":[],"
        "\"obfuscation\":\"3sPyXbGmnp\"}\n\n";
  body +=
      "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":"
      "{\"id\":\"resp_1\",\"model\":\"gpt-5\",\"status\":\"completed\",\"output\":[],"
      "\"usage\":{\"input_tokens\":10,\"output_tokens\":" +
      std::to_string(deltas) + ",\"total_tokens\":" + std::to_string(deltas + 10) + "}}}\n\n";
  return {"steady state: 10,000 text deltas (99.96% of events)", std::move(body)};
}

// The parser alone: touches each event's fields so none of the work is dead.
class ParseOnlySink final : public EventSink {
 public:
  std::string_view name() const override { return "sse-only"; }
  std::vector<Stream> corpus() const override { return load_sse_corpus("anthropic_stream_"); }
  std::optional<Stream> steady_state() const override { return anthropic_steady_state(10'000); }
  void on_event(const transport::SseEvent &event) override {
    checksum_ += event.type.size() + event.data.size();
    if (!event.data.empty()) checksum_ += static_cast<unsigned char>(event.data.back());
  }
  std::uint64_t checksum() const override { return checksum_; }

 private:
  std::uint64_t checksum_ = 0;
};

// A provider's live mapping: each SSE event becomes what the provider reports to the host, as
// it reports it: block starts, ends and usage as serialised JSON events (call_event), deltas
// typed (call_delta, no JSON); the response is built at the end of each stream.
template <class Translator>
class TranslatorSink : public EventSink {
 public:
  void begin_stream() override {
    translator_.emplace(
        [this](const boost::json::object &event) {
          checksum_ += boost::json::serialize(event).size();
        },
        [](std::string_view payload) {
          return amplifier::KernelError::make(amplifier::ErrorKind::stream, std::string(payload));
        },
        [this](std::uint32_t index, amp_delta_kind kind, std::string_view text) {
          checksum_ += index + static_cast<std::uint64_t>(kind) + text.size();
        });
  }
  void on_event(const transport::SseEvent &event) override {
    try {
      feed(event);
    } catch (const amplifier::KernelException &) {
      ++checksum_;  // the recorded error streams end in a typed error: part of the work
    }
  }
  std::uint64_t checksum() const override { return checksum_; }

 protected:
  // Chat Completions chunks carry no event type; the others are typed events.
  void feed(const transport::SseEvent &event) {
    if constexpr (requires(Translator & t) { t.on_sse_data(event.data); })
      translator_->on_sse_data(event.data);
    else if constexpr (requires(Translator & t) { t.on_line(event.data); })
      translator_->on_line(event.data);
    else
      translator_->on_sse_event(event.type, event.data);
  }

  std::optional<Translator> translator_;
  std::uint64_t checksum_ = 0;
};

// provider-anthropic.
class AnthropicKernelEventSink final : public TranslatorSink<provider_anthropic::StreamTranslator> {
 public:
  std::string_view name() const override { return "anthropic->kernel"; }
  std::vector<Stream> corpus() const override { return load_sse_corpus("anthropic_stream_"); }
  std::optional<Stream> steady_state() const override { return anthropic_steady_state(10'000); }
  void end_stream(const transport::SseStreamEnd &) override {
    if (translator_->complete()) checksum_ += translator_->take_response("bench").content.size();
  }
};

// provider-openai (Azure's is the same code): the Responses API.
class ResponsesKernelEventSink final
    : public TranslatorSink<openai_responses::ResponsesTranslator> {
 public:
  std::string_view name() const override { return "responses->kernel"; }
  std::vector<Stream> corpus() const override {
    std::vector<Stream> streams =
        ndjson_as_sse("openai_responses_stream_reasoning_tool_loop_recorded_vercel.ndjson");
    for (auto &stream : ndjson_as_sse("openai_responses_stream_error_recorded_vercel.ndjson"))
      streams.push_back(std::move(stream));
    for (auto &stream : load_sse_corpus("openai_responses_stream_"))
      streams.push_back(std::move(stream));
    return streams;
  }
  std::optional<Stream> steady_state() const override { return responses_steady_state(10'000); }
  void end_stream(const transport::SseStreamEnd &) override {
    if (translator_->finished()) checksum_ += translator_->take_result().content.size();
  }
};

// provider-chat-completions: OpenAI-compatible Chat Completions chunks.
class ChatKernelEventSink final : public TranslatorSink<chat_completions::ChatTranslator> {
 public:
  std::string_view name() const override { return "chat-completions->kernel"; }
  std::vector<Stream> corpus() const override {
    std::vector<Stream> streams = load_sse_corpus("openai_chat_stream_");
    // Azure's recording holds the chunks one per line, without the closing [DONE].
    std::istringstream in(read_file(fs::path(AMP_VENDOR_FIXTURE_DIR) /
                                    "azure_openai_chat_stream_recorded_vercel.ndjson"));
    Stream azure{"azure_openai_chat_stream_recorded_vercel.ndjson", {}};
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) azure.bytes += "data: " + line + "\n\n";
    azure.bytes += "data: [DONE]\n\n";
    streams.push_back(std::move(azure));
    return streams;
  }
  std::optional<Stream> steady_state() const override {
    std::string body;
    const std::string head =
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
        "\"created\":1727346182,\"model\":\"qwen3-8b\",\"choices\":[{\"index\":0,";
    for (int i = 0; i < 10'000; ++i)
      body += head +
              "\"delta\":{\"content\":\" token\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
    body += head + "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    body += "data: [DONE]\n\n";
    return Stream{"steady state: 10,000 text deltas (99.98% of events)", std::move(body)};
  }
  void end_stream(const transport::SseStreamEnd &) override {
    if (translator_->finished()) checksum_ += translator_->take_response("bench").content.size();
  }
};

// provider-ollama: /api/chat JSON lines.
class OllamaKernelEventSink final : public TranslatorSink<ollama::OllamaTranslator> {
 public:
  std::string_view name() const override { return "ollama->kernel"; }
  bool ndjson() const override { return true; }
  std::vector<Stream> corpus() const override {
    std::vector<Stream> streams;
    for (std::string_view name :
         {"ollama_chat_stream_docs.ndjson", "ollama_chat_stream_tool_calls_docs.ndjson"})
      streams.push_back({std::string(name), read_file(fs::path(AMP_VENDOR_FIXTURE_DIR) / name)});
    return streams;
  }
  std::optional<Stream> steady_state() const override {
    std::string body;
    for (int i = 0; i < 10'000; ++i)
      body +=
          "{\"model\":\"qwen3\",\"created_at\":\"2025-07-07T20:22:19.184789Z\",\"message\":"
          "{\"role\":\"assistant\",\"content\":\" token\"},\"done\":false}\n";
    body +=
        "{\"model\":\"qwen3\",\"created_at\":\"2025-07-07T20:22:19.19314Z\",\"message\":"
        "{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true,"
        "\"prompt_eval_count\":10,\"eval_count\":10000}\n";
    return Stream{"steady state: 10,000 text lines (99.99% of events)", std::move(body)};
  }
  void end_stream(const transport::SseStreamEnd &) override {
    if (translator_->finished()) checksum_ += translator_->take_response("bench").content.size();
  }
};

// provider-gemini: whole GenerateContentResponse chunks, CRLF-framed.
class GeminiKernelEventSink final : public TranslatorSink<gemini::GeminiTranslator> {
 public:
  std::string_view name() const override { return "gemini->kernel"; }
  std::vector<Stream> corpus() const override {
    std::vector<Stream> streams = load_sse_corpus("gemini_stream_");
    for (std::string_view name :
         {"gemini_stream_function_call_signature_gemini3_recorded_vercel.ndjson",
          "gemini_stream_text_signature_gemini3_recorded_vercel.ndjson"}) {
      std::istringstream in(read_file(fs::path(AMP_VENDOR_FIXTURE_DIR) / name));
      Stream stream{std::string(name), {}};
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) stream.bytes += "data: " + line + "\r\n\r\n";
      streams.push_back(std::move(stream));
    }
    return streams;
  }
  std::optional<Stream> steady_state() const override {
    std::string body;
    const std::string chunk =
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" token\"}],\"role\": "
        "\"model\"}}],\"usageMetadata\": {\"promptTokenCount\": 7,\"totalTokenCount\": 7},"
        "\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n";
    for (int i = 0; i < 10'000; ++i) body += chunk;
    body +=
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \".\"}],\"role\": "
        "\"model\"},\"finishReason\": \"STOP\"}],\"usageMetadata\": {\"promptTokenCount\": 7,"
        "\"candidatesTokenCount\": 10001,\"totalTokenCount\": 10008}}\r\n\r\n";
    return Stream{"steady state: 10,000 text chunks (99.99% of events)", std::move(body)};
  }
  void end_stream(const transport::SseStreamEnd &) override {
    if (translator_->finished()) checksum_ += translator_->take_response("bench").content.size();
  }
};

}  // namespace

std::vector<Stream> load_sse_corpus(std::string_view prefix) {
  std::vector<Stream> corpus;
  for (const auto &entry : fs::directory_iterator(fs::path(AMP_VENDOR_FIXTURE_DIR))) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && entry.path().extension() == ".sse")
      corpus.push_back({name, read_file(entry.path())});
  }
  std::sort(corpus.begin(), corpus.end(),
            [](const Stream &a, const Stream &b) { return a.name < b.name; });
  return corpus;
}

std::vector<std::unique_ptr<EventSink>> make_sinks() {
  std::vector<std::unique_ptr<EventSink>> sinks;
  sinks.push_back(std::make_unique<ParseOnlySink>());
  sinks.push_back(std::make_unique<AnthropicKernelEventSink>());
  sinks.push_back(std::make_unique<ResponsesKernelEventSink>());
  sinks.push_back(std::make_unique<ChatKernelEventSink>());
  sinks.push_back(std::make_unique<OllamaKernelEventSink>());
  sinks.push_back(std::make_unique<GeminiKernelEventSink>());
  return sinks;
}

}  // namespace amplifier::bench
