#include "http_settings.hpp"

#include "error_mapping.hpp"

#include <algorithm>
#include <cmath>

namespace provider_anthropic {

namespace transport = amplifier::transport;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kMaxConnectTimeout{10'000};
constexpr milliseconds kMaxHonouredRetryAfter{60'000};

std::string joined(const std::vector<std::string> &items, std::string_view separator) {
  std::string out;
  for (const auto &item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace

std::string messages_url(const AnthropicConfig &config) { return config.base_url + "/v1/messages"; }

std::string models_url(const AnthropicConfig &config, const std::string &after_id) {
  std::string url = config.base_url + "/v1/models?limit=1000";
  if (!after_id.empty()) url += "&after_id=" + after_id;
  return url;
}

transport::Headers anthropic_headers(const AnthropicConfig &config, bool streamed) {
  transport::Headers headers;
  headers.set("x-api-key", config.api_key);
  headers.set("anthropic-version", std::string(kApiVersion));
  if (!config.beta_headers.empty()) headers.set("anthropic-beta", joined(config.beta_headers, ","));
  headers.set("content-type", "application/json");
  headers.set("accept", streamed ? "text/event-stream" : "application/json");
  return headers;
}

transport::Timeouts timeouts_for(const AnthropicConfig &config,
                                 std::optional<double> request_timeout_seconds, bool streamed) {
  milliseconds timeout = config.timeout;
  if (request_timeout_seconds && *request_timeout_seconds > 0)
    timeout =
        milliseconds(std::max<std::int64_t>(1, std::llround(*request_timeout_seconds * 1000.0)));
  transport::Timeouts timeouts;
  timeouts.connect = std::min(timeout, kMaxConnectTimeout);
  timeouts.read = timeout;
  timeouts.stream_idle = timeout;
  timeouts.total = streamed ? milliseconds(0) : timeout;
  return timeouts;
}

transport::RetryOptions retry_options(const AnthropicConfig &config) {
  transport::RetryOptions options;
  options.max_retries = config.max_retries;
  options.min_retry_delay = config.min_retry_delay;
  options.max_retry_delay = config.max_retry_delay;
  options.overloaded_delay_multiplier = kOverloadedDelayMultiplier;
  options.max_honoured_retry_after = kMaxHonouredRetryAfter;
  return options;
}

transport::HttpClientOptions client_options(const AnthropicConfig &config, transport::LogSink log) {
  transport::HttpClientOptions options;
  options.timeouts = timeouts_for(config, std::nullopt, true);
  options.tls.verify_peer = config.verify_tls;
  options.tls.extra_ca_file = config.ca_file.value_or("");
  options.log = std::move(log);
  return options;
}

}  // namespace provider_anthropic
