// HTTP status + vendor body -> kernel error kind. The status decides the kind; the body may
// make it more specific (quota, context_length, content_filter, overloaded), never vaguer.
#include "amplifier/transport/error_mapping.hpp"
#include "text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>
#include <utility>

namespace amplifier::transport {
namespace json = boost::json;

namespace {

std::string string_member(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  if (value && value->is_string()) return std::string(value->get_string());
  return {};
}

// A delay a server may ask for: finite, not negative, at most a year. from_chars accepts "inf",
// "nan" and 1e300, which would overflow the conversion to milliseconds.
bool usable_seconds(double seconds) {
  return std::isfinite(seconds) && seconds >= 0 && seconds <= 365.0 * 24 * 3600;
}

// "26s", "34.4s" (google.protobuf.Duration in JSON).
std::optional<double> parse_duration_seconds(std::string_view text) {
  if (text.empty() || text.back() != 's') return std::nullopt;
  text.remove_suffix(1);
  double seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end != text.data() + text.size() || !usable_seconds(seconds))
    return std::nullopt;
  return seconds;
}

std::optional<double> google_retry_delay(const json::object &error) {
  const json::value *details = error.if_contains("details");
  if (!details || !details->is_array()) return std::nullopt;
  for (const json::value &detail : details->get_array()) {
    if (!detail.is_object()) continue;
    const json::object &entry = detail.get_object();
    if (!string_member(entry, "@type").ends_with("google.rpc.RetryInfo")) continue;
    if (auto delay = parse_duration_seconds(string_member(entry, "retryDelay"))) return delay;
  }
  return std::nullopt;
}

// google.rpc.ErrorInfo's reason ("API_KEY_INVALID"): what went wrong, more precisely than the
// status.
std::string google_error_reason(const json::object &error) {
  const json::value *details = error.if_contains("details");
  if (!details || !details->is_array()) return {};
  for (const json::value &detail : details->get_array()) {
    if (!detail.is_object()) continue;
    const json::object &entry = detail.get_object();
    if (string_member(entry, "@type").ends_with("google.rpc.ErrorInfo"))
      return string_member(entry, "reason");
  }
  return {};
}

void read_error_object(const json::object &error, VendorError &out) {
  out.type = string_member(error, "type");
  if (out.type.empty()) out.type = string_member(error, "status");  // google.rpc.Status
  out.code = string_member(error, "code");
  if (out.code.empty()) out.code = google_error_reason(error);
  out.message = string_member(error, "message");
  out.retry_delay_seconds = google_retry_delay(error);
  if (const json::value *inner = error.if_contains("innererror"); inner && inner->is_object())
    out.innererror = inner->get_object();
}

// The object holding the error: {"error":{...}}, an OpenAI response.failed's
// {"response":{"error":{...}}}, or the top level itself ({"type":"error","code","message"}).
void read_envelope(const json::object &top, VendorError &out) {
  if (const json::value *error = top.if_contains("error")) {
    if (error->is_object()) read_error_object(error->get_object(), out);
    if (error->is_string()) out.message = std::string(error->get_string());  // Ollama
  } else if (const json::value *response = top.if_contains("response");
             response && response->is_object() && response->get_object().contains("error")) {
    read_envelope(response->get_object(), out);
  } else {
    read_error_object(top, out);
    if (out.type == "error" || out.type.starts_with("response.")) out.type.clear();
  }
  const std::string request_id = string_member(top, "request_id");
  if (!request_id.empty()) out.request_id = request_id;
}

using detail::lower_ascii;

ErrorKind kind_from_status(int status) {
  switch (status) {
    case 400: case 409: case 413: case 422: return ErrorKind::invalid_request;
    case 401: return ErrorKind::authentication;
    case 402: return ErrorKind::quota;
    case 403: return ErrorKind::access_denied;
    case 404: return ErrorKind::not_found;
    case 408: case 504: return ErrorKind::timeout;
    case 429: return ErrorKind::rate_limit;
    case 529: return ErrorKind::overloaded;
    default: break;
  }
  if (status >= 400 && status < 500) return ErrorKind::invalid_request;
  if (status >= 500 && status < 600) return ErrorKind::unavailable;
  return ErrorKind::configuration;  // 1xx/3xx: redirects are not followed; the URL is wrong
}

// Kinds a vendor body may substitute for the status's kind because they say more.
bool more_specific_than_status(ErrorKind kind) {
  return kind == ErrorKind::quota || kind == ErrorKind::context_length ||
         kind == ErrorKind::content_filter || kind == ErrorKind::overloaded;
}

std::optional<ErrorKind> vendor_kind(const VendorError &vendor) {
  if (auto kind = kind_from_vendor_type(vendor.code)) return kind;  // code is more precise
  return kind_from_vendor_type(vendor.type);
}

// Gemini reports overload as 503 UNAVAILABLE "The model is overloaded..."
bool message_says_overloaded(const VendorError &vendor) {
  return lower_ascii(vendor.message).find("overloaded") != std::string::npos;
}

std::optional<std::string> header_request_id(const Headers &headers) {
  for (std::string_view name : {"request-id", "x-request-id"})
    if (auto value = headers.find(name)) return std::string(*value);
  return std::nullopt;
}

void note_vendor_codes(const VendorError &vendor, KernelError &error) {
  if (!vendor.type.empty()) error.extra["vendor_type"] = vendor.type;
  if (!vendor.code.empty()) error.extra["vendor_code"] = vendor.code;
  if (vendor.innererror) error.extra["innererror"] = *vendor.innererror;
}

void apply_identity(const ErrorMappingOptions &options, KernelError &error) {
  error.provider = options.provider;
  error.model = options.model;
}

std::string fallback_message(int status, std::string_view body) {
  std::string message = "HTTP " + std::to_string(status);
  constexpr std::size_t kExcerpt = 300;
  if (!body.empty()) {
    message += ": ";
    message.append(body.substr(0, kExcerpt));
    if (body.size() > kExcerpt) message += "...";
  }
  return message;
}

std::optional<double> parse_seconds(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value) || std::fabs(value) > 365.0 * 24 * 3600 * 1000)
    return std::nullopt;
  return value;
}

// IMF-fixdate, e.g. "Wed, 21 Oct 2015 07:28:00 GMT" (RFC 9110 section 5.6.7).
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  static constexpr std::array<std::string_view, 12> kMonths{
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (text.size() != 29 || text.substr(3, 2) != ", " || text.substr(25) != " GMT")
    return std::nullopt;
  auto number = [&](std::size_t at, std::size_t length) -> std::optional<int> {
    int value = 0;
    const char *begin = text.data() + at;
    const auto [end, error] = std::from_chars(begin, begin + length, value);
    if (error != std::errc() || end != begin + length) return std::nullopt;
    return value;
  };
  const auto month = std::find(kMonths.begin(), kMonths.end(), text.substr(8, 3));
  const auto day = number(5, 2), year = number(12, 4), hour = number(17, 2),
             minute = number(20, 2), second = number(23, 2);
  if (month == kMonths.end() || !day || !year || !hour || !minute || !second) return std::nullopt;
  std::tm parts{};
  parts.tm_year = *year - 1900;
  parts.tm_mon = static_cast<int>(month - kMonths.begin());
  parts.tm_mday = *day;
  parts.tm_hour = *hour;
  parts.tm_min = *minute;
  parts.tm_sec = *second;
  const std::time_t seconds = timegm(&parts);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(seconds);
}

}  // namespace

VendorError parse_vendor_error(std::string_view body) {
  VendorError out;
  boost::system::error_code parse_error;
  json::value document = json::parse(body, parse_error);
  if (parse_error) return out;
  if (document.is_array() && !document.get_array().empty())
    document = json::value(document.get_array().front());  // [{"error":{...}}] (Google)
  if (document.is_object()) read_envelope(document.get_object(), out);
  return out;
}

bool looks_like_context_length(int status, const VendorError &error) {
  // Rate limits talk about "tokens per minute"; they are not context overflows.
  if (status == 429 || status >= 500) return false;
  static constexpr std::array<std::string_view, 9> kPhrases{
      "prompt is too long",       "context_length_exceeded", "context length",
      "maximum context length",   "context window",          "input is too long",
      "exceeds the maximum number of tokens", "too many tokens", "reduce the length"};
  const std::string haystack =
      lower_ascii(error.message) + '\n' + lower_ascii(error.type) + '\n' + lower_ascii(error.code);
  return std::any_of(kPhrases.begin(), kPhrases.end(), [&](std::string_view phrase) {
    return haystack.find(phrase) != std::string::npos;
  });
}

std::optional<ErrorKind> kind_from_vendor_type(std::string_view type) {
  static constexpr std::array<std::pair<std::string_view, ErrorKind>, 31> kTypes{{
      // Anthropic
      {"invalid_request_error", ErrorKind::invalid_request},
      {"authentication_error", ErrorKind::authentication},
      {"billing_error", ErrorKind::quota},
      {"permission_error", ErrorKind::access_denied},
      {"not_found_error", ErrorKind::not_found},
      {"request_too_large", ErrorKind::invalid_request},
      {"rate_limit_error", ErrorKind::rate_limit},
      {"api_error", ErrorKind::unavailable},
      {"timeout_error", ErrorKind::timeout},
      {"overloaded_error", ErrorKind::overloaded},
      // OpenAI / Azure OpenAI
      {"insufficient_quota", ErrorKind::quota},
      {"rate_limit_exceeded", ErrorKind::rate_limit},
      {"context_length_exceeded", ErrorKind::context_length},
      {"string_above_max_length", ErrorKind::context_length},
      {"content_filter", ErrorKind::content_filter},
      {"content_policy_violation", ErrorKind::content_filter},
      {"server_error", ErrorKind::unavailable},
      {"invalid_api_key", ErrorKind::authentication},
      {"model_not_found", ErrorKind::not_found},
      // Google (google.rpc.Code names)
      {"INVALID_ARGUMENT", ErrorKind::invalid_request},
      {"FAILED_PRECONDITION", ErrorKind::invalid_request},
      {"OUT_OF_RANGE", ErrorKind::invalid_request},
      {"UNAUTHENTICATED", ErrorKind::authentication},
      {"PERMISSION_DENIED", ErrorKind::access_denied},
      {"NOT_FOUND", ErrorKind::not_found},
      {"RESOURCE_EXHAUSTED", ErrorKind::rate_limit},
      {"UNAVAILABLE", ErrorKind::unavailable},
      {"INTERNAL", ErrorKind::unavailable},
      {"DEADLINE_EXCEEDED", ErrorKind::timeout},
      {"ABORTED", ErrorKind::unavailable},
      {"CANCELLED", ErrorKind::unavailable},
  }};
  for (const auto &[name, kind] : kTypes)
    if (name == type) return kind;
  return std::nullopt;
}

std::optional<double> retry_after_seconds(const Headers &headers,
                                          std::chrono::system_clock::time_point now) {
  if (auto millis = headers.find("retry-after-ms")) {
    if (auto value = parse_seconds(*millis); value && *value >= 0) return *value / 1000.0;
  }
  const auto retry_after = headers.find("retry-after");
  if (!retry_after) return std::nullopt;
  if (auto value = parse_seconds(*retry_after)) {
    if (*value >= 0) return *value;
    return std::nullopt;
  }
  if (auto date = parse_http_date(*retry_after)) {
    const auto wait = std::chrono::duration<double>(*date - now).count();
    return wait > 0 ? wait : 0.0;  // a date in the past means "now"
  }
  return std::nullopt;
}

std::optional<bool> should_retry_header(const Headers &headers) {
  const auto value = headers.find("x-should-retry");
  if (!value) return std::nullopt;
  if (*value == "true") return true;
  if (*value == "false") return false;
  return std::nullopt;
}

KernelError map_http_error(int status, const Headers &headers, std::string_view body,
                           const ErrorMappingOptions &options) {
  const VendorError vendor = parse_vendor_error(body);
  ErrorKind kind = kind_from_status(status);
  if (auto from_body = vendor_kind(vendor); from_body && more_specific_than_status(*from_body))
    kind = *from_body;
  if (kind == ErrorKind::unavailable && message_says_overloaded(vendor))
    kind = ErrorKind::overloaded;
  if (options.is_context_length && options.is_context_length(status, vendor))
    kind = ErrorKind::context_length;

  KernelError error =
      KernelError::make(kind, vendor.message.empty() ? fallback_message(status, body)
                                                     : vendor.message);
  error.status_code = status;
  // A 409 is a conflict on the vendor's side (e.g. a lock timeout): the SDKs retry it.
  if (status == 409) error.retryable = true;
  if (auto should_retry = should_retry_header(headers)) error.retryable = *should_retry;
  error.retry_after = retry_after_seconds(headers);
  if (!error.retry_after) error.retry_after = vendor.retry_delay_seconds;
  error.request_id = header_request_id(headers);
  if (!error.request_id) error.request_id = vendor.request_id;
  apply_identity(options, error);
  note_vendor_codes(vendor, error);
  return error;
}

KernelError map_stream_error(std::string_view payload, const ErrorMappingOptions &options) {
  const VendorError vendor = parse_vendor_error(payload);
  // An unnamed in-stream failure is the server failing mid-response.
  ErrorKind kind = vendor_kind(vendor).value_or(ErrorKind::unavailable);
  if (kind == ErrorKind::unavailable && message_says_overloaded(vendor))
    kind = ErrorKind::overloaded;
  if (options.is_context_length && options.is_context_length(0, vendor))
    kind = ErrorKind::context_length;
  std::string message = vendor.message;
  if (message.empty()) message = "error event: " + std::string(payload.substr(0, 300));
  KernelError error = KernelError::make(kind, std::move(message));
  error.retry_after = vendor.retry_delay_seconds;
  error.request_id = vendor.request_id;
  apply_identity(options, error);
  note_vendor_codes(vendor, error);
  return error;
}

KernelError transport_failure(ErrorKind kind, std::string message) {
  return KernelError::make(kind, std::move(message));
}

}  // namespace amplifier::transport
