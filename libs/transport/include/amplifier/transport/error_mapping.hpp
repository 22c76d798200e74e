// Maps HTTP statuses, vendor error bodies and transport failures to the kernel error kinds
// (amplifier/errors.hpp), with the vendor's message, request id and retry hints.
#pragma once

#include "amplifier/errors.hpp"
#include "amplifier/transport/headers.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::transport {

// What a vendor error body says, extracted from the common envelopes:
//   Anthropic {"type":"error","error":{"type","message"},"request_id"}
//   OpenAI    {"error":{"message","type","param","code"}}
//   Google    {"error":{"code","message","status","details":[...RetryInfo...]}} (or in [ ])
//   Ollama    {"error":"message"}
// Absent parts are empty.
struct VendorError {
  std::string type;     // error.type, or Google's error.status
  // error.code when it is a string (OpenAI "insufficient_quota"), else Google's
  // ErrorInfo reason ("API_KEY_INVALID")
  std::string code;
  std::string message;  // error.message, or a bare string error
  std::optional<std::string> request_id;        // top-level request_id
  std::optional<double> retry_delay_seconds;    // Google RetryInfo.retryDelay ("26s")
  // Azure OpenAI's error.innererror (its code and the content filter results), kept whole in
  // the KernelError's extra.innererror.
  std::optional<boost::json::object> innererror;
};
// Never throws; a body that is not JSON (or an unknown shape) yields an empty VendorError.
VendorError parse_vendor_error(std::string_view body);

// Decides whether a failure is a context-window overflow. Gets the HTTP status (0 for an
// in-stream error) and the extracted vendor error.
using ContextLengthDetector = std::function<bool(int status, const VendorError &error)>;
// The default: "prompt is too long", "context_length_exceeded", "maximum context length",
// "context window", "too many tokens"... in the message, type or code.
bool looks_like_context_length(int status, const VendorError &error);

struct ErrorMappingOptions {
  std::optional<std::string> provider;  // copied into KernelError::provider
  std::optional<std::string> model;     // copied into KernelError::model
  ContextLengthDetector is_context_length = looks_like_context_length;
};

// Maps a non-2xx response. kind from the status (429 rate_limit, 401 authentication,
// 403 access_denied, 404 not_found, 400/409/413/422 invalid_request, 402 quota,
// 408/504 timeout, 529 overloaded, 500/502/503 unavailable), refined by the body (quota,
// context_length, content_filter, overloaded). `x-should-retry: true|false` overrides
// `retryable`; retry_after comes from retry-after-ms, retry-after (seconds or HTTP date) or
// the body's RetryInfo; request_id from request-id / x-request-id or the body.
KernelError map_http_error(int status, const Headers &headers, std::string_view body,
                           const ErrorMappingOptions &options = {});

// Maps an error object a vendor sent inside a 200 stream (Anthropic `event: error`, OpenAI
// `error` / `response.failed`): the kind comes from the vendor's error type or code.
KernelError map_stream_error(std::string_view payload, const ErrorMappingOptions &options = {});

// Maps a vendor error type/code/status string ("overloaded_error", "rate_limit_exceeded",
// "RESOURCE_EXHAUSTED", "insufficient_quota"...) to a kind, if it is a known one.
std::optional<ErrorKind> kind_from_vendor_type(std::string_view type);

// The server's retry hint in seconds: retry-after-ms, else retry-after as seconds or as an
// HTTP date (relative to `now`). Negative or unparsable hints are ignored.
std::optional<double> retry_after_seconds(
    const Headers &headers,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// The `x-should-retry` header as a bool, when it is exactly "true" or "false".
std::optional<bool> should_retry_header(const Headers &headers);

// A KernelError for a failure with no HTTP response (our own timeouts, connection failures,
// cut-off streams, cancellation). Retryability follows the kind's default.
KernelError transport_failure(ErrorKind kind, std::string message);

}  // namespace amplifier::transport
