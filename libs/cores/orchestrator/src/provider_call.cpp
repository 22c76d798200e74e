#include "amplifier/orchestrator/provider_call.hpp"

#include "amplifier/module_support/json_util.hpp"

#include "amplifier/orchestrator/call_errors.hpp"
#include "amplifier/orchestrator/events.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <mutex>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace {

using amplifier::module_support::string_at;

// The typed form of a JSON delta (from a provider built before ABI 1.2), so that hooks see
// the same content_block:delta whichever way the provider reported it. Reasoning deltas,
// which are structured, and deltas carrying extra fields have none.
struct TypedDelta {
  std::uint32_t index;
  amp_delta_kind kind;
  std::string_view text;
};

std::optional<TypedDelta> typed_form(const json::object &event) {
  if (string_at(event, "type") != stream::kContentBlockDelta) return std::nullopt;
  const json::value *index = event.if_contains("index");
  const json::value *delta = event.if_contains("delta");
  if (!index || !index->is_number() || !delta || !delta->is_object()) return std::nullopt;
  const json::object &fields = delta->get_object();
  // A delta with fields of its own beyond its text keeps them: it goes on as JSON.
  if (fields.size() != 2) return std::nullopt;
  for (amp_delta_kind kind : {AMP_DELTA_TEXT, AMP_DELTA_THINKING, AMP_DELTA_SIGNATURE,
                              AMP_DELTA_TOOL_INPUT, AMP_DELTA_REDACTED_THINKING}) {
    if (string_at(fields, "type") != amp::sdk::json::delta_type(kind)) continue;
    const json::value *text = fields.if_contains(amp::sdk::json::delta_field(kind));
    if (!text || !text->is_string()) return std::nullopt;
    return TypedDelta{index->to_number<std::uint32_t>(), kind, text->get_string()};
  }
  return std::nullopt;
}

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

ProviderResult response_from(std::string_view payload, const std::string &provider) {
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

ProviderResult interpret(amp_status status, std::string_view payload, const std::string &provider) {
  if (status == AMP_OK) return response_from(payload, provider);
  if (status == AMP_CANCELLED) return ProviderResult{ProviderResult::Status::Cancelled, {}, {}, {}};
  return failure(error_from_payload(payload), provider);
}

// The state one provider call shares between the turn and the sink callbacks, which run on
// the provider's threads. Held by shared_ptr from the sink, so a call that reports after the
// turn gave up on it touches live memory.
struct ProviderStream {
  ProviderStream(const amp::sdk::Host &h, std::shared_ptr<TurnSignal> s, std::string p)
      : host(h), signal(std::move(s)), provider(std::move(p)) {}

  // A typed delta (ABI 1.2): checked and handed to the hooks as it is. The hot path: no JSON.
  void forward_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text) {
    std::lock_guard lock(delivery);
    if (abandoned) return;  // the turn has moved on: its observers must not see stale blocks
    content_streamed = true;
    if (!stream_problem_logged) {
      try {
        checker.feed_delta(index, kind, text);
      } catch (const std::exception &e) {
        report_inconsistency(e.what());
      }
    }
    emit_delta(index, kind, text);
  }

  // A JSON stream event: block start/end, usage, or a delta from an older provider.
  void forward_event(std::string_view event_json) {
    std::lock_guard lock(delivery);
    if (abandoned) return;
    if (skip_unheard_block_end(event_json)) return;
    json::error_code ec;
    json::value parsed = json::parse(event_json, ec);
    if (ec || !parsed.is_object()) return;  // the host already rejects malformed events
    json::object &event = parsed.get_object();
    check_consistency(event);
    if (auto delta = typed_form(event)) {
      content_streamed = true;
      return emit_delta(delta->index, delta->kind, delta->text);
    }
    if (auto kernel_event = kernel_event_for(std::move(event))) {
      content_streamed = true;
      if (!host.has_hook_handlers(kernel_event->first)) return;
      if (host.notify(kernel_event->first, json::serialize(kernel_event->second)) != AMP_OK)
        host.warn("could not emit " + std::string(kernel_event->first));
    }
  }

  // A block's end carries the whole block (megabytes for a long answer). With no hook to hear
  // content_block:end, only its place in the stream is checked: no DOM of the block is built.
  bool skip_unheard_block_end(std::string_view event_json) {
    if (!peek.read(event_json) || peek.string(peek_type) != stream::kContentBlockEnd) return false;
    if (host.has_hook_handlers(event::kContentBlockEnd)) return false;
    const auto index = peek.integer(peek_index);
    if (!index) return false;  // the DOM path says what is wrong with it
    check_consistency(json::object{{"type", stream::kContentBlockEnd}, {"index", *index}});
    return true;
  }

  void emit_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text) {
    try {
      host.emit_content_delta(index, kind, text);
    } catch (const std::exception &e) {
      host.warn(std::string("could not emit content_block:delta: ") + e.what());
    }
  }

  // Records the terminal event and wakes the turn. Runs on the provider's thread, often the
  // I/O thread other sessions' streams share: the payload is only copied here, and read on the
  // turn's worker.
  void finish(amp_status s, std::string_view p) {
    std::string copy(p);  // outside the lock: it may be megabytes
    signal->publish([&] {
      finished = true;
      status = s;
      payload = std::move(copy);
    });
  }

  // Stops forwarding; waits for an event being forwarded right now.
  void abandon() {
    std::lock_guard lock(delivery);
    abandoned = true;
  }

  // The checker validates the stream's structure (deltas for started blocks, one start and one
  // end per block) without keeping its content: the terminal response is authoritative, and a
  // stream that contradicts the protocol is worth one warning per call, not a failed turn.
  void check_consistency(const json::object &event) {
    if (stream_problem_logged) return;
    try {
      checker.feed(event);
    } catch (const std::exception &e) {
      report_inconsistency(e.what());
    }
  }
  void report_inconsistency(const char *what) {
    stream_problem_logged = true;
    host.warn("provider '" + provider + "' sent an inconsistent stream: " + what);
  }

  amp::sdk::Host host;
  std::shared_ptr<TurnSignal> signal;
  std::string provider;

  std::mutex delivery;  // serialises forwarding with abandon(); guards the two fields below
  bool abandoned = false;
  bool content_streamed = false;
  ResponseAssembler checker{ResponseAssembler::Options{/*keep_content=*/false}};
  JsonFieldReader peek;
  const JsonFieldReader::Field peek_type = peek.declare({"type"});
  const JsonFieldReader::Field peek_index = peek.declare({"index"});
  bool stream_problem_logged = false;

  // Guarded by the signal's mutex; written once, by finish().
  bool finished = false;
  amp_status status = AMP_ERROR;
  std::string payload;
};

}  // namespace

std::optional<std::pair<std::string_view, json::object>> kernel_event_for(
    json::object stream_event) {
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
    json::value *block = stream_event.if_contains("block");
    json::object data;
    data.reserve(2);
    data.emplace("block_index", *index);
    data.emplace("block", block ? std::move(*block) : json::value());
    return std::pair{event::kContentBlockEnd, std::move(data)};
  }
  return std::nullopt;
}

Task<ProviderResult> call_provider(const amp::sdk::Host &host, std::shared_ptr<TurnSignal> signal,
                                   std::string provider, std::string request_json,
                                   std::chrono::milliseconds cancel_grace) {
  auto stream = std::make_shared<ProviderStream>(host, signal, provider);
  amp_call_sink sink = amp::sdk::CallbackSink::make(
      [stream](amp_call_id, std::string_view event) { stream->forward_event(event); },
      [stream](amp_call_id, amp_status status, std::string_view payload) {
        stream->finish(status, payload);
      },
      [stream](amp_call_id, std::uint32_t index, amp_delta_kind kind, std::string_view text) {
        stream->forward_delta(index, kind, text);
      });
  amp_call_id call = 0;
  amp_status started = host.provider_complete(provider, request_json, sink, &call);
  request_json = std::string();  // the provider has its own copy; a long history is not kept twice
  if (started != AMP_OK) {
    amp::sdk::CallbackSink::discard(sink);
    co_return start_failure(started, provider);
  }

  auto finished = [&stream] { return stream->finished; };
  if (!co_await signal->until(finished, AMP_CANCEL_IMMEDIATE)) {
    host.cancel_call(call, AMP_CANCEL_IMMEDIATE);
    // The provider owes a terminal event; waiting briefly for it lets the provider release the
    // call cleanly. Its content is discarded either way.
    co_await signal->until(finished, std::nullopt, TurnSignal::Clock::now() + cancel_grace);
    stream->abandon();
    // The sink may outlive the turn; what the call sent is not needed any more.
    signal->publish([&] { stream->payload = std::string(); });
    co_return ProviderResult{ProviderResult::Status::Cancelled, {}, {}, {}};
  }
  // `finished` was seen under the signal's mutex after finish() wrote these fields, and
  // finish() runs once, so they are stable now.
  ProviderResult result = interpret(stream->status, stream->payload, provider);
  stream->payload = std::string();  // read: a long answer is not kept twice
  {
    std::lock_guard lock(stream->delivery);
    result.content_streamed = stream->content_streamed;
  }
  co_return result;
}

}  // namespace amplifier::orchestrator
