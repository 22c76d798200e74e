// How provider-anthropic talks HTTP: endpoint URLs, headers, timeouts, retries and TLS, all
// derived from the config (pure functions, unit-tested without a network).
#pragma once
#include "anthropic_config.hpp"

#include "amplifier/provider/http_config.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier/transport/retry_policy.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace provider_anthropic {

std::string messages_url(const AnthropicConfig &config);  // {base_url}/v1/messages
std::string models_url(const AnthropicConfig &config,
                       const std::string &after_id);  // GET /v1/models

// x-api-key, anthropic-version, anthropic-beta (when beta_headers are configured), and the
// content negotiation for a streamed or a whole response.
amplifier::transport::Headers anthropic_headers(const AnthropicConfig &config, bool streamed);

// Timeouts and the client's options as every provider derives them (Anthropic sends pings, so
// a live stream never goes quiet for a whole `timeout`).
using amplifier::provider::client_options;
using amplifier::provider::timeouts_for;

// The config's retry settings; overloaded errors (529) wait ten times longer.
amplifier::transport::RetryOptions retry_options(const AnthropicConfig &config);

}  // namespace provider_anthropic
