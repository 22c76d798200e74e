#include "amplifier/provider/http_config.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace amplifier::provider {

namespace ms = amplifier::module_support;
namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

constexpr double kMaxSeconds = 24 * 60 * 60;  // a day: anything longer is a typo
constexpr milliseconds kMaxConnectTimeout{10'000};
constexpr milliseconds kMaxHonouredRetryAfter{60'000};

double seconds_of(milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

}  // namespace

std::optional<std::string> process_env(std::string_view name) {
  const char *value = std::getenv(std::string(name).c_str());
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> string_or_env(ms::ConfigReader &reader, std::string_view key,
                                         std::string_view env_name, const EnvLookup &env) {
  if (auto value = reader.get_optional_string(key); value && !value->empty()) return value;
  if (auto value = env(env_name); value && !value->empty()) return value;
  return std::nullopt;
}

std::string checked_base_url(ms::ConfigReader &reader, std::string_view key, std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    throw reader.error(key, "must start with http:// or https://, got '" + url + "'");
  return url;
}

milliseconds seconds_key(ms::ConfigReader &reader, std::string_view key, milliseconds fallback,
                         double min_seconds) {
  const double seconds = reader.get_number(key, seconds_of(fallback), min_seconds, kMaxSeconds);
  return milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
}

void read_http_config(ms::ConfigReader &reader, HttpConfig &config) {
  config.timeout = seconds_key(reader, "timeout", config.timeout, 0.001);
  config.max_retries = static_cast<int>(reader.get_int("max_retries", config.max_retries, 0, 100));
  config.min_retry_delay = seconds_key(reader, "min_retry_delay", config.min_retry_delay, 0.0);
  config.max_retry_delay = seconds_key(reader, "max_retry_delay", config.max_retry_delay, 0.0);
  if (config.max_retry_delay < config.min_retry_delay)
    throw reader.error("max_retry_delay", "must not be smaller than min_retry_delay");
  config.verify_tls = reader.get_bool("verify_tls", config.verify_tls);
  if (auto ca_file = reader.get_optional_string("ca_file")) config.ca_file = std::move(ca_file);
  const bool debug = reader.get_bool("debug", false);
  const bool raw_debug = reader.get_bool("raw_debug", false);
  const bool raw = reader.get_bool("raw", false);  // the older name of debug + raw_debug
  if (raw_debug && !debug && !raw)
    throw reader.error("raw_debug", "needs debug: true as well (raw_debug adds to debug's events)");
  config.debug_level = raw || (debug && raw_debug) ? DebugLevel::raw
                       : debug                     ? DebugLevel::debug
                                                   : DebugLevel::summary;
}

transport::Timeouts timeouts_for(const HttpConfig &config,
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

transport::RetryOptions retry_options(const HttpConfig &config, double overloaded_multiplier) {
  transport::RetryOptions options;
  options.max_retries = config.max_retries;
  options.min_retry_delay = config.min_retry_delay;
  options.max_retry_delay = config.max_retry_delay;
  options.overloaded_delay_multiplier = overloaded_multiplier;
  options.max_honoured_retry_after = kMaxHonouredRetryAfter;
  return options;
}

transport::HttpClientOptions client_options(const HttpConfig &config, transport::LogSink log) {
  transport::HttpClientOptions options;
  options.timeouts = timeouts_for(config, std::nullopt, true);
  options.tls.verify_peer = config.verify_tls;
  options.tls.extra_ca_file = config.ca_file.value_or("");
  options.log = std::move(log);
  return options;
}

json::object config_field(std::string_view id, std::string_view display_name, std::string_view type,
                          std::string_view prompt, json::value default_value) {
  json::object out{{"id", id},
                   {"display_name", display_name},
                   {"field_type", type},
                   {"prompt", prompt},
                   {"required", false}};
  if (!default_value.is_null()) out["default"] = std::move(default_value);
  return out;
}

void append_http_config_fields(const HttpConfig &config, json::array &fields) {
  fields.push_back(config_field("timeout", "Timeout (s)", "text",
                                "Longest wait for a response or between streamed chunks",
                                seconds_of(config.timeout)));
  fields.push_back(config_field("max_retries", "Max retries", "text", "Retries of a failed request",
                                config.max_retries));
  fields.push_back(config_field("min_retry_delay", "Min retry delay (s)", "text",
                                "First backoff delay", seconds_of(config.min_retry_delay)));
  fields.push_back(config_field("max_retry_delay", "Max retry delay (s)", "text",
                                "Longest backoff delay", seconds_of(config.max_retry_delay)));
  fields.push_back(config_field("verify_tls", "Verify TLS", "boolean",
                                "Check the server certificate (turn off only for testing)", true));
  fields.push_back(
      config_field("ca_file", "CA file", "text", "Extra trusted certificate authorities (PEM)"));
  fields.push_back(config_field("debug", "Debug events", "boolean",
                                "llm:request:debug / llm:response:debug with the payloads, cut",
                                false));
  fields.push_back(config_field("raw_debug", "Raw debug events", "boolean",
                                "With debug: llm:request:raw / llm:response:raw, complete", false));
  fields.push_back(config_field("raw", "Raw payloads", "boolean",
                                "The same as debug and raw_debug together (older name)", false));
}

void warn_if_tls_unverified(const amp::sdk::Host &host, std::string_view module_id,
                            const HttpConfig &config) {
  if (config.verify_tls) return;
  host.warn(std::string(module_id) +
            " config: verify_tls is false, so the server's TLS certificate is not checked; use "
            "it only against a test server");
}

transport::Headers json_headers(bool with_body, std::string_view accept) {
  transport::Headers headers;
  if (with_body) headers.set("content-type", "application/json");
  headers.set("accept", std::string(accept));
  return headers;
}

transport::CallSpec whole_request(const HttpConfig &config, std::string method, std::string url,
                                  transport::Headers headers,
                                  transport::ErrorMappingOptions errors, std::string body) {
  transport::CallSpec spec;
  spec.request.method = std::move(method);
  spec.request.url = std::move(url);
  spec.request.headers = std::move(headers);
  spec.request.body = std::move(body);
  spec.request.timeouts = timeouts_for(config, std::nullopt, false);
  spec.format = transport::BodyFormat::whole;
  spec.retry = retry_options(config);
  spec.errors = std::move(errors);
  return spec;
}

}  // namespace amplifier::provider
