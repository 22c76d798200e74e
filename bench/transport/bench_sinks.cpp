#include "bench_sinks.hpp"

#include "stream_mapping.hpp"

#include <boost/json/serialize.hpp>

#include <optional>

namespace amplifier::bench {

namespace {

// The parser alone: touches each event's fields so none of the work is dead.
class ParseOnlySink final : public EventSink {
 public:
  std::string_view name() const override { return "sse-only"; }
  std::string_view corpus_prefix() const override { return "anthropic_stream_"; }
  void on_event(const transport::SseEvent &event) override {
    checksum_ += event.type.size() + event.data.size();
    if (!event.data.empty()) checksum_ += static_cast<unsigned char>(event.data.back());
  }
  std::uint64_t checksum() const override { return checksum_; }

 private:
  std::uint64_t checksum_ = 0;
};

// provider-anthropic's live mapping: each SSE event becomes what the provider reports to the
// host, as it reports it: block starts, ends and usage as serialised JSON events (call_event),
// deltas typed (call_delta, no JSON); the response is built at the end.
class AnthropicKernelEventSink final : public EventSink {
 public:
  std::string_view name() const override { return "anthropic->kernel"; }
  std::string_view corpus_prefix() const override { return "anthropic_stream_"; }
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
      translator_->on_sse_event(event.type, event.data);
    } catch (const amplifier::KernelException &) {
      ++checksum_;  // the recorded error stream ends in a typed error: part of the work
    }
  }
  void end_stream(const transport::SseStreamEnd &) override {
    if (translator_->complete()) checksum_ += translator_->take_response("bench").content.size();
  }
  std::uint64_t checksum() const override { return checksum_; }

 private:
  std::optional<provider_anthropic::StreamTranslator> translator_;
  std::uint64_t checksum_ = 0;
};

}  // namespace

std::vector<std::unique_ptr<EventSink>> make_sinks() {
  std::vector<std::unique_ptr<EventSink>> sinks;
  sinks.push_back(std::make_unique<ParseOnlySink>());
  sinks.push_back(std::make_unique<AnthropicKernelEventSink>());
  return sinks;
}

}  // namespace amplifier::bench
