// Kernel error kinds: the classification every provider maps its failures to, and the JSON a
// failed call's terminal event carries.
#pragma once
#include "amplifier/model_base.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace amplifier {

enum class ErrorKind {
  rate_limit,
  authentication,
  access_denied,
  not_found,
  invalid_request,
  context_length,
  content_filter,
  overloaded,
  unavailable,
  timeout,
  network,
  stream,
  cancelled,
  quota,
  invalid_tool_call,
  configuration,
  internal,
  // A module run in its own process (isolation: process) died, or was killed, mid-call.
  module_crashed,
};

std::string_view to_string(ErrorKind kind);
// Accepts the names above and the reference kernel's spellings (provider_unavailable, abort,
// quota_exceeded). Throws ModelError on anything else.
ErrorKind error_kind_from_string(std::string_view name);
// Whether a failure of this kind is worth retrying unchanged (rate limits, overload,
// transient outages). context_length is not: the same request fails the same way.
bool retryable_by_default(ErrorKind kind);

// JSON: {"kind","message","provider"?,"model"?,"status_code"?,"retryable","retry_after"?,
// "request_id"?, ...extra}. `retryable` defaults to retryable_by_default(kind) when absent.
struct KernelError {
  ErrorKind kind = ErrorKind::internal;
  std::string message;
  std::optional<std::string> provider;
  std::optional<std::string> model;
  std::optional<int> status_code;  // HTTP status, when there was one
  bool retryable = false;
  std::optional<double> retry_after;  // seconds
  std::optional<std::string> request_id;
  boost::json::object extra;

  // A KernelError of `kind` whose `retryable` follows the kind's default.
  static KernelError make(ErrorKind kind, std::string message);
};
using ProviderError = KernelError;

boost::json::object to_json(const KernelError &error);
template <>
KernelError from_json<KernelError>(const boost::json::value &json);

// Carries a KernelError through C++ code up to the module boundary, where it becomes the
// terminal event's error JSON. what() is "<kind>: <message>".
class KernelException : public std::runtime_error {
 public:
  explicit KernelException(KernelError error);
  const KernelError &error() const noexcept { return error_; }

 private:
  KernelError error_;
};

}  // namespace amplifier
