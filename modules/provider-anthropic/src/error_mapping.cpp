#include "error_mapping.hpp"

#include "anthropic_config.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace provider_anthropic {

namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;

namespace {

constexpr std::array<std::pair<std::string_view, ErrorKind>, 11> kAnthropicErrorTypes{{
    {"invalid_request_error", ErrorKind::invalid_request},
    {"authentication_error", ErrorKind::authentication},
    {"billing_error", ErrorKind::quota},
    {"permission_error", ErrorKind::access_denied},
    {"not_found_error", ErrorKind::not_found},
    {"request_too_large", ErrorKind::context_length},
    {"rate_limit_error", ErrorKind::rate_limit},
    {"api_error", ErrorKind::unavailable},
    {"timeout_error", ErrorKind::timeout},
    {"overloaded_error", ErrorKind::overloaded},
    {"conflict_error", ErrorKind::unavailable},
}};

constexpr std::string_view kRefinedMarker = "anthropic_error_type";

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string string_extra(const KernelError &error, std::string_view key) {
  const boost::json::value *value = error.extra.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

}  // namespace

std::optional<ErrorKind> kind_for_anthropic_type(std::string_view type) {
  for (const auto &[name, kind] : kAnthropicErrorTypes)
    if (name == type) return kind;
  return std::nullopt;
}

bool is_context_length_error(int status, const transport::VendorError &error) {
  if (error.type == "request_too_large") return true;
  if (lowercase(error.message).find("prompt is too long") != std::string::npos) return true;
  return transport::looks_like_context_length(status, error);
}

transport::ErrorMappingOptions anthropic_error_options(std::string_view model) {
  transport::ErrorMappingOptions options;
  options.provider = std::string(kModuleId);
  options.model = std::string(model);
  options.is_context_length = is_context_length_error;
  return options;
}

void refine_anthropic_error(KernelError &error, const transport::Headers *response_headers) {
  const std::string type = string_extra(error, "vendor_type");
  // Transport failures (network, timeout, cancelled) carry no Anthropic error type, and an
  // error refined once already says so.
  if (type.empty() || error.extra.contains(kRefinedMarker)) return;
  if (error.kind != ErrorKind::context_length) {
    if (auto kind = kind_for_anthropic_type(type)) error.kind = *kind;
  }
  std::optional<bool> should_retry;
  if (response_headers) should_retry = transport::should_retry_header(*response_headers);
  error.retryable = should_retry.value_or(amplifier::retryable_by_default(error.kind));
  // The same request fails the same way however often it is sent.
  if (error.kind == ErrorKind::context_length) error.retryable = false;
  if (error.kind == ErrorKind::overloaded)
    error.extra["delay_multiplier"] = kOverloadedDelayMultiplier;
  const int status = error.status_code.value_or(0);
  std::string message = "Anthropic";
  if (status > 0) message += " HTTP " + std::to_string(status);
  message += " " + type + ": " + error.message;
  error.message = std::move(message);
  error.extra[kRefinedMarker] = type;
}

KernelError map_http_failure(int status, const transport::Headers &headers, std::string_view body,
                             const transport::ErrorMappingOptions &options) {
  KernelError error = transport::map_http_error(status, headers, body, options);
  refine_anthropic_error(error, &headers);
  return error;
}

KernelError map_stream_failure(std::string_view payload,
                               const transport::ErrorMappingOptions &options) {
  KernelError error = transport::map_stream_error(payload, options);
  refine_anthropic_error(error, nullptr);
  return error;
}

}  // namespace provider_anthropic
