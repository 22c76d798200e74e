#include "bench_sinks.hpp"

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

}  // namespace

std::vector<std::unique_ptr<EventSink>> make_sinks() {
  std::vector<std::unique_ptr<EventSink>> sinks;
  sinks.push_back(std::make_unique<ParseOnlySink>());
  // provider-anthropic: add the SSE -> kernel stream event mapping sink here.
  return sinks;
}

}  // namespace amplifier::bench
