// The payloads of llm:request / llm:response, for every provider module. With `raw: true`
// they carry what went over the wire, but never a credential: auth headers are masked and the
// API key is scrubbed from every string, so event logs can be shared.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/transport/headers.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::provider {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// True for header names that carry credentials (x-api-key, authorization, cookies, tokens).
bool is_secret_header(std::string_view name);

// The headers as a JSON object, secret values masked.
boost::json::object redacted_headers(const amplifier::transport::Headers &headers);

// Replaces every occurrence of `secret` inside every string of `value` (keys included).
void scrub_secret(boost::json::value &value, std::string_view secret);

struct RequestSummary {
  std::string_view provider;
  std::string_view model;
  bool stream = true;
  std::size_t message_count = 0;
  std::size_t tool_count = 0;
  bool thinking = false;
};

// {provider, model, stream, message_count, tool_count, thinking} plus, when `raw`,
// request: {method, url, headers, body}.
boost::json::object llm_request_payload(const RequestSummary &summary, bool raw,
                                        std::string_view url,
                                        const amplifier::transport::Headers &headers,
                                        const boost::json::object &body, std::string_view api_key);

// A copy of `value` for the debug events: strings over 512 bytes cut (at a UTF-8 boundary)
// with "… [N more bytes]", arrays over 64 items cut with a last "… [N more items]".
boost::json::value cut_for_debug(const boost::json::value &value);

struct ResponseSummary {
  std::string_view provider;
  std::string_view model;
  int status = 0;
  std::chrono::milliseconds duration{0};
  const amplifier::ChatResponse *response = nullptr;  // null when the call failed
  const amplifier::KernelError *error = nullptr;      // null when it succeeded
};

// {provider, model, status, duration_ms, usage?, finish_reason?, error?} plus, when `raw`,
// response: {status, headers, body} where body is the Message JSON (stream: false) or the
// array of stream event objects received.
boost::json::object llm_response_payload(const ResponseSummary &summary, bool raw,
                                         const amplifier::transport::Headers &headers,
                                         boost::json::value raw_body, std::string_view api_key);

}  // namespace amplifier::provider
