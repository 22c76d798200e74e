// Kernel error kinds and KernelError <-> JSON.
#include "amplifier/errors.hpp"

#include "json_access.hpp"

#include <array>
#include <utility>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

namespace {

constexpr std::array<std::pair<ErrorKind, std::string_view>, 18> kKindNames{{
    {ErrorKind::rate_limit, "rate_limit"},
    {ErrorKind::authentication, "authentication"},
    {ErrorKind::access_denied, "access_denied"},
    {ErrorKind::not_found, "not_found"},
    {ErrorKind::invalid_request, "invalid_request"},
    {ErrorKind::context_length, "context_length"},
    {ErrorKind::content_filter, "content_filter"},
    {ErrorKind::overloaded, "overloaded"},
    {ErrorKind::unavailable, "unavailable"},
    {ErrorKind::timeout, "timeout"},
    {ErrorKind::network, "network"},
    {ErrorKind::stream, "stream"},
    {ErrorKind::cancelled, "cancelled"},
    {ErrorKind::quota, "quota"},
    {ErrorKind::invalid_tool_call, "invalid_tool_call"},
    {ErrorKind::configuration, "configuration"},
    {ErrorKind::internal, "internal"},
    {ErrorKind::module_crashed, "module_crashed"},
}};

// Spellings of the reference kernel (amplifier-core), accepted so its payloads parse.
constexpr std::array<std::pair<ErrorKind, std::string_view>, 3> kReferenceAliases{{
    {ErrorKind::unavailable, "provider_unavailable"},
    {ErrorKind::cancelled, "abort"},
    {ErrorKind::quota, "quota_exceeded"},
}};

ErrorKind parse_kind(const json::object &object, const JsonPath &path) {
  const std::string name = detail::required_string(object, "kind", path, "error");
  try {
    return error_kind_from_string(name);
  } catch (const ModelError &error) {
    path.child("kind").fail(error.problem());
  }
}

std::optional<int> parse_status_code(const json::object &object, const JsonPath &path) {
  const auto code = detail::optional_int(object, "status_code", path);
  if (!code) return std::nullopt;
  if (*code < 0 || *code > 999) path.child("status_code").fail("not an HTTP status code");
  return static_cast<int>(*code);
}

}  // namespace

std::string_view to_string(ErrorKind kind) {
  for (const auto &[candidate, name] : kKindNames)
    if (candidate == kind) return name;
  return "internal";  // only reachable through a cast of an out-of-range integer
}

ErrorKind error_kind_from_string(std::string_view name) {
  for (const auto &[kind, candidate] : kKindNames)
    if (candidate == name) return kind;
  for (const auto &[kind, alias] : kReferenceAliases)
    if (alias == name) return kind;
  throw ModelError("kind", "unknown error kind '" + std::string(name) + "'");
}

bool retryable_by_default(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::rate_limit:
    case ErrorKind::overloaded:
    case ErrorKind::unavailable:
    case ErrorKind::timeout:
    case ErrorKind::network:
    case ErrorKind::stream:
      return true;
    default:
      return false;
  }
}

KernelError KernelError::make(ErrorKind kind, std::string message) {
  KernelError error;
  error.kind = kind;
  error.message = std::move(message);
  error.retryable = retryable_by_default(kind);
  return error;
}

json::object to_json(const KernelError &error) {
  json::object out;
  out.emplace("kind", to_string(error.kind));
  out.emplace("message", error.message);
  detail::put(out, "provider", error.provider);
  detail::put(out, "model", error.model);
  if (error.status_code) out.emplace("status_code", *error.status_code);
  out.emplace("retryable", error.retryable);
  detail::put(out, "retry_after", error.retry_after);
  detail::put(out, "request_id", error.request_id);
  detail::put_extra(out, error.extra);
  return out;
}

template <>
KernelError from_json<KernelError>(const json::value &json) {
  const JsonPath root;
  const json::object &object = detail::expect_object(json, root);
  KernelError error;
  error.kind = parse_kind(object, root);
  error.message = detail::required_string(object, "message", root, "error");
  error.provider = detail::optional_string(object, "provider", root);
  error.model = detail::optional_string(object, "model", root);
  error.status_code = parse_status_code(object, root);
  error.retryable =
      detail::optional_bool(object, "retryable", root).value_or(retryable_by_default(error.kind));
  error.retry_after = detail::optional_number(object, "retry_after", root);
  error.request_id = detail::optional_string(object, "request_id", root);
  error.extra = detail::unknown_fields(object, {"kind", "message", "provider", "model",
                                                "status_code", "retryable", "retry_after",
                                                "request_id"});
  return error;
}

KernelException::KernelException(KernelError error)
    : std::runtime_error(std::string(to_string(error.kind)) + ": " + error.message),
      error_(std::move(error)) {}

}  // namespace amplifier
