// Anthropic's error envelope {type:"error", error:{type, message}, request_id} -> kernel
// errors. The transport maps statuses and headers generically (retry-after, x-should-retry,
// request-id); this refines the kind with Anthropic's own error type, which is authoritative.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/headers.hpp"

#include <optional>
#include <string_view>

namespace provider_anthropic {

// Anthropic's 529 overloaded_error waits this many times the normal backoff before a retry.
inline constexpr double kOverloadedDelayMultiplier = 10.0;

// invalid_request_error, authentication_error, billing_error (quota), permission_error
// (access_denied), not_found_error, request_too_large (context_length: only a smaller request
// helps), rate_limit_error, api_error (unavailable), timeout_error, overloaded_error,
// conflict_error (unavailable: a concurrent change, worth a retry).
std::optional<amplifier::ErrorKind> kind_for_anthropic_type(std::string_view type);

// "prompt is too long: 208000 tokens > 200000 maximum" and its relatives.
bool is_context_length_error(int status, const amplifier::transport::VendorError &error);

// Refines an error the transport mapped generically (it keeps Anthropic's error type in
// extra.vendor_type): Anthropic's kind, context_length never retryable, otherwise
// x-should-retry (from `response_headers`, when given) or the kind's default, the delay
// multiplier of overloaded errors, and a message naming status, type and Anthropic's text.
void refine_anthropic_error(amplifier::KernelError &error,
                            const amplifier::transport::Headers *response_headers);

// A non-2xx response of the Messages API.
amplifier::KernelError map_http_failure(int status, const amplifier::transport::Headers &headers,
                                        std::string_view body,
                                        const amplifier::transport::ErrorMappingOptions &options);

// An `event: error` inside a 200 stream (e.g. overloaded_error, the in-stream 529).
amplifier::KernelError map_stream_failure(std::string_view payload,
                                          const amplifier::transport::ErrorMappingOptions &options);

// The mapping options for Anthropic calls: provider id, model, and the context-length test.
amplifier::transport::ErrorMappingOptions anthropic_error_options(std::string_view model);

}  // namespace provider_anthropic
