#include "amplifier/orchestrator/provider_call.hpp"

#include "amplifier/orchestrator/call_errors.hpp"
#include "amplifier/orchestrator/events.hpp"
#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <mutex>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace {

std::string_view string_at(const json::object &o, std::string_view key) {
  auto *v = o.if_contains(key);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// The state one provider call shares between the turn thread and the sink callbacks, which
// run on the provider's threads. Held by shared_ptr from the sink, so a call that reports
// after the turn gave up on it touches live memory.
struct ProviderStream {
  ProviderStream(const amp::sdk::Host &h, std::shared_ptr<TurnSignal> s, std::string p)
      : host(h), signal(std::move(s)), provider(std::move(p)) {}

  // Forwards one stream event as a kernel event. Runs on the provider's thread.
  void forward(std::string_view event_json) {
    std::lock_guard lock(delivery);
    if (abandoned) return;  // the turn has moved on: its observers must not see stale blocks
    json::error_code ec;
    json::value event = json::parse(event_json, ec);
    if (ec || !event.is_object()) return;  // the host already rejects malformed events
    check_consistency(event.get_object());
    if (auto kernel_event = kernel_event_for(event.get_object())) {
      try {
        host.emit(kernel_event->first, json::serialize(kernel_event->second));
      } catch (const std::exception &e) {
        host.warn(std::string("could not emit ") + std::string(kernel_event->first) + ": " + e.what());
      }
    }
  }

  // Records the terminal event and wakes the turn thread. Runs on the provider's thread.
  void finish(amp_status s, std::string_view p) {
    signal->publish([&] {
      finished = true;
      status = s;
      payload.assign(p);
    });
  }

  // Stops forwarding; waits for an event being forwarded right now.
  void abandon() {
    std::lock_guard lock(delivery);
    abandoned = true;
  }

  // Feeds the assembler, which checks the stream's structure (deltas for started blocks,
  // one start and one end per block). The terminal response is authoritative; a stream that
  // contradicts the protocol is worth one warning per call, not a failed turn.
  void check_consistency(const json::object &event) {
    if (stream_problem_logged) return;
    try {
      assembler.feed(event);
    } catch (const std::exception &e) {
      stream_problem_logged = true;
      host.warn("provider '" + provider + "' sent an inconsistent stream: " + e.what());
    }
  }

  amp::sdk::Host host;
  std::shared_ptr<TurnSignal> signal;
  std::string provider;

  std::mutex delivery;  // serialises forwarding with abandon()
  bool abandoned = false;
  ResponseAssembler assembler;
  bool stream_problem_logged = false;

  // Guarded by the signal's mutex; written once, by finish().
  bool finished = false;
  amp_status status = AMP_ERROR;
  std::string payload;
};

ProviderResult failure(KernelError error, const std::string &provider) {
  if (!error.provider) error.provider = provider;
  ProviderResult result;
  result.status = ProviderResult::Status::Error;
  result.error = std::move(error);
  return result;
}

ProviderResult start_failure(amp_status status, const std::string &provider) {
  if (status == AMP_NOT_FOUND)
    return failure(KernelError::make(ErrorKind::configuration,
                                     "provider '" + provider + "' is not mounted"),
                   provider);
  return failure(KernelError::make(ErrorKind::internal,
                                   "the host refused to start a completion on provider '" +
                                       provider + "' (status " +
                                       std::to_string(static_cast<int>(status)) + ")"),
                 provider);
}

ProviderResult response_from(const std::string &payload, const std::string &provider) {
  ProviderResult result;
  try {
    json::value parsed = parse_json(payload);
    if (!parsed.is_object()) throw ModelError("", "a ChatResponse must be a JSON object");
    result.response = from_json<ChatResponse>(parsed);
    result.response_json = std::move(parsed.get_object());
  } catch (const std::exception &e) {
    return failure(KernelError::make(ErrorKind::stream, "provider '" + provider +
                                                            "' returned an invalid response: " +
                                                            e.what()),
                   provider);
  }
  result.status = ProviderResult::Status::Response;
  return result;
}

ProviderResult interpret(amp_status status, const std::string &payload, const std::string &provider) {
  if (status == AMP_OK) return response_from(payload, provider);
  if (status == AMP_CANCELLED) return ProviderResult{ProviderResult::Status::Cancelled, {}, {}, {}};
  return failure(error_from_payload(payload), provider);
}

}  // namespace

std::optional<std::pair<std::string_view, json::object>> kernel_event_for(
    const json::object &stream_event) {
  const std::string_view type = string_at(stream_event, "type");
  const json::value *index = stream_event.if_contains("index");
  if (!index) return std::nullopt;
  if (type == stream::kContentBlockStart) {
    const json::value *block = stream_event.if_contains("block");
    std::string_view block_type = block && block->is_object() ? string_at(block->get_object(), "type")
                                                              : std::string_view();
    return std::pair{event::kContentBlockStart,
                     json::object{{"block_type", block_type}, {"block_index", *index}}};
  }
  if (type == stream::kContentBlockDelta) {
    const json::value *delta = stream_event.if_contains("delta");
    if (!delta || !delta->is_object()) return std::nullopt;
    if (string_at(delta->get_object(), "type") == stream::kToolInputDelta)
      return std::pair{event::kContentBlockDelta,
                       json::object{{"block_index", *index},
                                    {"partial_json", string_at(delta->get_object(), "partial_json")}}};
    return std::pair{event::kContentBlockDelta,
                     json::object{{"block_index", *index}, {"delta", *delta}}};
  }
  if (type == stream::kContentBlockEnd) {
    const json::value *block = stream_event.if_contains("block");
    return std::pair{event::kContentBlockEnd,
                     json::object{{"block_index", *index}, {"block", block ? *block : json::value()}}};
  }
  return std::nullopt;
}

ProviderResult call_provider(const amp::sdk::Host &host, const std::shared_ptr<TurnSignal> &signal,
                             const std::string &provider, const std::string &request_json,
                             std::chrono::milliseconds cancel_grace) {
  auto stream = std::make_shared<ProviderStream>(host, signal, provider);
  amp_call_sink sink = amp::sdk::CallbackSink::make(
      [stream](amp_call_id, std::string_view event) { stream->forward(event); },
      [stream](amp_call_id, amp_status status, std::string_view payload) {
        stream->finish(status, payload);
      });
  amp_call_id call = 0;
  amp_status started = host.provider_complete(provider, request_json, sink, &call);
  if (started != AMP_OK) {
    amp::sdk::CallbackSink::discard(sink);
    return start_failure(started, provider);
  }

  auto finished = [&] { return stream->finished; };
  if (!signal->wait(finished, AMP_CANCEL_IMMEDIATE)) {
    host.cancel_call(call, AMP_CANCEL_IMMEDIATE);
    // The provider owes a terminal event; waiting briefly for it lets the provider release the
    // call cleanly. Its content is discarded either way.
    signal->wait_until(finished, TurnSignal::Clock::now() + cancel_grace);
    stream->abandon();
    return ProviderResult{ProviderResult::Status::Cancelled, {}, {}, {}};
  }
  // `finished` was seen under the signal's mutex after finish() wrote these fields, and
  // finish() runs once, so they are stable now.
  return interpret(stream->status, stream->payload, provider);
}

}  // namespace amplifier::orchestrator
