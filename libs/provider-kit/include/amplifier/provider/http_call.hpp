// What every HTTP provider call does the same way around its vendor's mapping: the exchange
// in flight and its cancellation (from any thread, even before it started), the reports
// (provider:retry, llm:request, llm:response), the raw wire capture, and exactly one terminal
// event. A provider derives its call from this and supplies the request and the translation
// of what comes back (on_head / on_event / on_complete).
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/provider/event_sink.hpp"
#include "amplifier/provider/call_reports.hpp"
#include "amplifier/provider/call_table.hpp"
#include "amplifier/provider/http_config.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

// Who the call is, as its reports and errors name it.
struct CallIdentity {
  amp::sdk::Host host;
  amp_call_id id = 0;
  std::string provider;  // the module id
  std::string model;     // as the conversation names it
  DebugLevel debug_level = DebugLevel::summary;  // which llm:* events carry the payloads
  std::string secret;    // scrubbed from those payloads
};

// What llm:request reports of the request.
struct WireRequest {
  std::string url;
  transport::Headers headers;
  bool stream = true;
  bool reasoning = false;  // thinking / a reasoning effort was asked for
  // How a streamed body is framed: SSE events (on_event) or JSON lines (on_line).
  transport::BodyFormat stream_format = transport::BodyFormat::sse;
};

// What a provider's stream translator reports through: block starts, ends and usage as JSON
// events (call_event), text / thinking / tool-input deltas typed (ABI 1.2; the SDK falls back
// to JSON events on an older host), and how a vendor's in-stream error becomes a KernelError.
struct StreamSinks {
  EventSink events;
  std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)> deltas;
  std::function<amplifier::KernelError(std::string_view payload)> map_error;
};

class HttpProviderCall : public ProviderCall,
                         public std::enable_shared_from_this<HttpProviderCall> {
 public:
  void cancel() override;

 protected:
  HttpProviderCall(CallIdentity identity, WireRequest wire);
  ~HttpProviderCall() override = default;

  // What the request mapping repaired, reported before the request goes.
  struct Repairs {
    const std::vector<RepairedToolCall> &repaired_tool_calls;
    const std::vector<std::string> &dropped_tool_results;
  };
  // Reports the repairs and the request (announce), then starts the first exchange.
  void begin(transport::HttpClient &client, const boost::json::object &body,
             std::string_view items_key, Repairs repairs, CallTable::DoneFn on_done,
             transport::CallSpec first);

  // Reports the request (llm:request; `body` and the counts of its `items_key` and tools
  // arrays), remembers `on_done` (run on the io thread right after the terminal event) and
  // starts the clock of llm:response.
  void announce(const boost::json::object &body, std::string_view items_key,
                CallTable::DoneFn on_done);
  // llm:request (a summary), and by the debug level llm:request:debug (the payload cut) and
  // llm:request:raw (complete); `resent` rides on each when the request is sent again.
  void report_request(const boost::json::object &body, std::string_view items_key,
                      const boost::json::object *resent) const;
  // The same request sent again, changed (a field the server refused left out): its own
  // llm:request, with "resent": {"reason"}, then a new exchange of `spec`. The clock of
  // llm:response keeps running from the first.
  void resend(transport::HttpClient &client, const boost::json::object &body,
              std::string_view items_key, std::string_view reason, transport::CallSpec spec);
  // A POST of `body` to the wire request's URL with its headers, framed as it streams
  // (stream_format) or not; the caller adds timeouts, retries and error mapping.
  transport::CallSpec post(std::string body) const;
  // The same with the config's timeouts (`request_timeout` overriding), retries and this call's
  // error options: a vendor request as most providers send it.
  transport::CallSpec post(std::string body, const HttpConfig &config,
                           std::optional<double> request_timeout) const;
  // Starts one exchange of `spec` on `client`; its callbacks come to the hooks below and
  // provider:retry is reported here. A call cancelled before this cancels it at once.
  void start_exchange(transport::HttpClient &client, transport::CallSpec spec);

  // A 2xx response head arrived: a new attempt, to be translated from scratch.
  virtual void on_head() = 0;
  // A streamed body's SSE events, or its JSON lines (stream_format ndjson).
  virtual void on_event(const transport::SseEvent &, transport::CallControl &) {}
  virtual void on_line(std::string_view, transport::CallControl &) {}
  // The exchange ended; the implementation ends the call with finish_ok or finish_error.
  virtual void on_complete(transport::CallResult result) = 0;

  // From the debug level on, keeps a stream event's data (JSON, or the text when it is not JSON) or a
  // whole response body, for llm:response: a non-streamed call's one body, else the array.
  void capture_raw_event(std::string_view data);
  void capture_raw_body(const boost::json::value &body);
  void forget_raw() { raw_events_.clear(); }
  // The headers of the exchange's last response, for llm:response.
  void keep_response_headers(const transport::Headers &headers) { response_headers_ = headers; }

  // How the vendor's errors are read (provider and model filled in); a provider with its own
  // context-length wording overrides it.
  virtual transport::ErrorMappingOptions error_options() const;
  // Makes a mapped error exact for the vendor (a kind the status cannot tell, a message
  // prefix, a secret scrubbed). `headers`: the response's, when there was one.
  virtual void refine_error(amplifier::KernelError &, const transport::Headers *) const {}
  // The sinks a new translator gets (its error mapper refines as above).
  StreamSinks stream_sinks() const;

  // A new translator in `slot` (each attempt starts afresh), on this call's sinks; `extra` are
  // the translator's further constructor arguments.
  template <class Translator, class... Extra>
  Translator &fresh_translator(std::optional<Translator> &slot, Extra &&...extra) {
    forget_raw();
    StreamSinks sinks = stream_sinks();
    return slot.emplace(std::move(sinks.events), std::move(sinks.map_error),
                        std::move(sinks.deltas), std::forward<Extra>(extra)...);
  }

  // Runs `finish` (which ends the call), ending the call with what it throws instead: a
  // KernelException's error (refined), anything else as `internal`.
  template <class Finish>
  void finish_guarded(int status, Finish &&finish) {
    try {
      finish();
    } catch (const amplifier::KernelException &e) {
      amplifier::KernelError error = e.error();
      refine_error(error, nullptr);
      finish_error(std::move(error), status);
    } catch (const std::exception &e) {
      finish_error(amplifier::KernelError::make(amplifier::ErrorKind::internal, e.what()), status);
    }
  }
  // The error of a stream that ended before `end_marker` (its last event cut off, when so).
  static amplifier::KernelError unfinished_stream(std::string_view end_marker, bool truncated);

  // One streamed piece (an SSE event's data or a JSON line) through `feed(translator, data)`,
  // which may throw KernelException: the raw capture, then, once a block reached the host, no
  // retry (it would show the same content twice), and a failure ends the exchange with the
  // error, its provider and model filled in.
  template <class Translator, class Feed>
  void translate_piece(transport::CallControl &control, std::string_view data,
                       Translator &translator, Feed &&feed) {
    capture_raw_event(data);
    std::optional<amplifier::KernelError> failure;
    try {
      feed(translator, data);
    } catch (const amplifier::KernelException &e) {
      failure = e.error();
    }
    if (translator.content_started()) control.mark_content_delivered();
    if (failure) fail_exchange(control, std::move(*failure));
  }

  void finish_ok(amplifier::ChatResponse response, int status);
  void finish_error(amplifier::KernelError error, int status);

  const CallIdentity &identity() const noexcept { return identity_; }
  const WireRequest &wire() const noexcept { return wire_; }

 private:
  void fail_exchange(transport::CallControl &control, amplifier::KernelError error) const;
  void report_retry(const transport::RetryNotice &notice) const;
  void report_response(int status, const amplifier::ChatResponse *response,
                       const amplifier::KernelError *error);

  const CallIdentity identity_;
  const WireRequest wire_;
  CallTable::DoneFn on_done_;
  std::chrono::steady_clock::time_point started_at_;

  // io thread only:
  transport::Headers response_headers_;
  boost::json::array raw_events_;

  std::mutex cancel_mutex_;  // guards the two fields below
  transport::CancelHandle handle_;
  bool cancel_requested_ = false;
};

}  // namespace amplifier::provider
