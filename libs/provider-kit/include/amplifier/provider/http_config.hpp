// What every HTTP provider module reads from its config the same way: credentials and URLs
// that fall back to the environment, timeouts, retries and TLS; and how those settings become
// the shared transport's options. Pure functions, unit-tested without a network.
#pragma once
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier_sdk.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier/transport/retry_policy.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::provider {

using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment, as an EnvLookup (unset and empty both read as absent).
std::optional<std::string> process_env(std::string_view name);

// The config value when given and non-empty, else the environment variable, else nullopt. An
// empty config value counts as absent because "${OPENAI_API_KEY}" expands to "" when the
// variable is unset.
std::optional<std::string> string_or_env(module_support::ConfigReader &reader,
                                         std::string_view key, std::string_view env_name,
                                         const EnvLookup &env);

// `url` without trailing slashes; throws the reader's ConfigError for `key` unless it starts
// with http:// or https://.
std::string checked_base_url(module_support::ConfigReader &reader, std::string_view key,
                             std::string url);

// A duration given in seconds (fractions allowed) between `min_seconds` and a day.
std::chrono::milliseconds seconds_key(module_support::ConfigReader &reader, std::string_view key,
                                      std::chrono::milliseconds fallback, double min_seconds);

// How much of a call's wire traffic its events carry: the provider spec's debug levels, the
// same for every provider.
//   summary  llm:request / llm:response only: model, counts, usage, status, timing (default);
//   debug    also llm:request:debug / llm:response:debug: the payloads, with long strings and
//            arrays cut (`debug: true`);
//   raw      also llm:request:raw / llm:response:raw: the complete payloads, exactly as they
//            went and came (`debug: true, raw_debug: true`; `raw: true` is an alias of both).
// Credentials are redacted at every level (headers masked, the key scrubbed from every string).
enum class DebugLevel { summary, debug, raw };

struct HttpConfig {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // a whole call, retries excluded
  int max_retries = 5;
  std::chrono::milliseconds min_retry_delay{1000};
  std::chrono::milliseconds max_retry_delay{60000};
  bool verify_tls = true;
  std::optional<std::string> ca_file;
  DebugLevel debug_level = DebugLevel::summary;  // debug, raw_debug, raw
};

// Reads timeout, max_retries, min_retry_delay, max_retry_delay, verify_tls, ca_file and the
// debug level (debug, raw_debug, and raw, their alias) into
// `config` (whose values are the defaults). Throws ConfigError naming the first bad value.
void read_http_config(module_support::ConfigReader &reader, HttpConfig &config);

// `timeout` (the request's, else the config's) bounds the wait for the response head and,
// when streaming, every silence between chunks; a whole response must arrive within it.
transport::Timeouts timeouts_for(const HttpConfig &config,
                                 std::optional<double> request_timeout_seconds, bool streamed);

// The config's retry settings. A server's wait (retry-after-ms, retry-after) of up to 60 s is
// honoured even beyond max_retry_delay; `overloaded` errors wait `overloaded_multiplier` times
// the backoff.
transport::RetryOptions retry_options(const HttpConfig &config, double overloaded_multiplier = 1.0);

transport::HttpClientOptions client_options(const HttpConfig &config, transport::LogSink log);

// One entry of a provider's config_fields (ProviderInfo): {id, display_name, field_type,
// prompt, required: false, default?}.
boost::json::object config_field(std::string_view id, std::string_view display_name,
                                 std::string_view type, std::string_view prompt,
                                 boost::json::value default_value = nullptr);

// The config_fields entries of HttpConfig's keys, with the config's values as defaults.
void append_http_config_fields(const HttpConfig &config, boost::json::array &fields);

// A provider module's config, read once at mount: every key through `read(reader)` (which
// throws ConfigError naming the first bad value), the unknown keys warned about, and a warning
// when verify_tls is off.
template <class Config, class Read>
std::shared_ptr<const Config> read_module_config(const amp::sdk::Host &host,
                                                 std::string_view module_id,
                                                 std::string_view config_json, Read &&read) {
  module_support::ConfigReader reader(config_json, std::string(module_id) + " config");
  auto config = std::make_shared<const Config>(read(reader));
  reader.warn_unknown_keys(host);
  warn_if_tls_unverified(host, module_id, *config);
  return config;
}
void warn_if_tls_unverified(const amp::sdk::Host &host, std::string_view module_id,
                            const HttpConfig &config);

// The headers of a JSON API request: content-type when a body goes, and what is accepted
// back (`accept`, e.g. text/event-stream for a stream, else application/json).
transport::Headers json_headers(bool with_body, std::string_view accept);

// A request answered with one whole body (listings, lookups) under the config's timeouts and
// retries.
transport::CallSpec whole_request(const HttpConfig &config, std::string method, std::string url,
                                  transport::Headers headers,
                                  transport::ErrorMappingOptions errors, std::string body = {});

}  // namespace amplifier::provider
