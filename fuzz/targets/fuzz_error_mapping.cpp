// Every provider's error mapping: the transport's (map_http_error, map_stream_error,
// parse_vendor_error, the retry hints; chat-completions and ollama use these as they are),
// Anthropic's (map_http_failure, map_stream_failure), the Responses API's (refine_error,
// map_stream_failure) and Gemini's (refine_error, which redacts the key).
// Input: two bytes of HTTP status, "Name: value" header lines up to a blank line, then the body.
// Invariants: mapping never throws; the error keeps the status; its JSON round-trips; a retry
// hint is finite and not negative; `x-should-retry: true|false` decides retryable; Gemini's
// refined message never holds the API key; refining twice changes nothing more.
#include "fuzz_support.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/headers.hpp"
#include "error_mapping.hpp"
#include "gemini_call.hpp"
#include "gemini_config.hpp"
#include "responses_config.hpp"
#include "responses_errors.hpp"

#include <cmath>

namespace transport = amplifier::transport;
using amplifier::KernelError;

namespace {

void check(const KernelError &error, std::optional<int> status) {
  const boost::json::object json = amplifier::to_json(error);
  FUZZ_CHECK(amplifier::to_json(amplifier::from_json<KernelError>(json)) == json);
  if (status) FUZZ_CHECK(error.status_code == status);
  if (error.retry_after) FUZZ_CHECK(std::isfinite(*error.retry_after) && *error.retry_after >= 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size < 2) return 0;
  const int status = 100 + (data[0] << 8 | data[1]) % 500;
  std::string_view rest = amp_fuzz::as_text(data + 2, size - 2);
  transport::Headers headers;
  while (!rest.empty()) {
    const std::size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    if (line.empty()) break;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    headers.add(std::string(line.substr(0, colon)), std::string(value));
  }
  const std::string_view body = rest;

  (void)transport::parse_vendor_error(body);
  if (const auto hint = transport::retry_after_seconds(headers))
    FUZZ_CHECK(std::isfinite(*hint) && *hint >= 0);

  const KernelError http = transport::map_http_error(status, headers, body, {});
  check(http, status);
  if (const auto should = transport::should_retry_header(headers)) FUZZ_CHECK(http.retryable == *should);
  check(transport::map_stream_error(body, {}), std::nullopt);

  const auto anthropic_options = provider_anthropic::anthropic_error_options("claude-fuzz");
  check(provider_anthropic::map_http_failure(status, headers, body, anthropic_options), status);
  check(provider_anthropic::map_stream_failure(body, anthropic_options), std::nullopt);

  static const openai_responses::ResponsesConfig openai;
  KernelError responses = transport::map_http_error(status, headers, body,
                                                    openai_responses::error_options(openai, "gpt-fuzz"));
  openai_responses::refine_error(openai, responses);
  check(responses, status);
  const boost::json::object once = amplifier::to_json(responses);
  openai_responses::refine_error(openai, responses);
  FUZZ_CHECK(amplifier::to_json(responses) == once);
  check(openai_responses::map_stream_failure(openai, "gpt-fuzz", body), std::nullopt);

  static const gemini::GeminiConfig gemini_config = [] {
    gemini::GeminiConfig c;
    c.api_key = "AIzaFuzzKey";
    return c;
  }();
  KernelError google = transport::map_http_error(status, headers, body, {});
  gemini::refine_error(gemini_config, google);
  check(google, status);
  FUZZ_CHECK(google.message.find(gemini_config.api_key) == std::string::npos);
  return 0;
}
