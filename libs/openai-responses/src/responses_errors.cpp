#include "responses_errors.hpp"

namespace openai_responses {

namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;

namespace {

constexpr std::string_view kRefinedMarker = "vendor";

std::string string_extra(const KernelError &error, std::string_view key) {
  const boost::json::value *value = error.extra.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

}  // namespace

transport::ErrorMappingOptions error_options(const ResponsesConfig &config,
                                             std::string_view model) {
  transport::ErrorMappingOptions options;
  options.provider = config.module_id;
  options.model = std::string(model);
  return options;
}

void refine_error(const ResponsesConfig &config, KernelError &error) {
  // The same request fails the same way however often it is sent.
  if (error.kind == ErrorKind::context_length || error.kind == ErrorKind::content_filter)
    error.retryable = false;
  // Transport failures (network, timeout, cancelled) carry no vendor code; refined ones say so.
  std::string code = string_extra(error, "vendor_code");
  if (code.empty()) code = string_extra(error, "vendor_type");
  if (code.empty() || error.extra.contains(kRefinedMarker)) return;
  std::string message = config.display_name;
  if (error.status_code) message += " HTTP " + std::to_string(*error.status_code);
  message += " " + code + ": " + error.message;
  error.message = std::move(message);
  error.extra[kRefinedMarker] = config.display_name;
}

KernelError map_stream_failure(const ResponsesConfig &config, std::string_view model,
                               std::string_view payload) {
  KernelError error = transport::map_stream_error(payload, error_options(config, model));
  refine_error(config, error);
  return error;
}

}  // namespace openai_responses
