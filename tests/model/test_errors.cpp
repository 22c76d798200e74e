// Kernel error kinds and the KernelError JSON of failed calls.
#include <amplifier/errors.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

namespace json = boost::json;
using namespace amplifier;

TEST_CASE("every error kind converts to and from its name") {
  const ErrorKind kinds[] = {
      ErrorKind::rate_limit,     ErrorKind::authentication, ErrorKind::access_denied,
      ErrorKind::not_found,      ErrorKind::invalid_request, ErrorKind::context_length,
      ErrorKind::content_filter, ErrorKind::overloaded,     ErrorKind::unavailable,
      ErrorKind::timeout,        ErrorKind::network,        ErrorKind::stream,
      ErrorKind::cancelled,      ErrorKind::quota,          ErrorKind::invalid_tool_call,
      ErrorKind::configuration,  ErrorKind::internal};
  for (ErrorKind kind : kinds) CHECK(error_kind_from_string(to_string(kind)) == kind);
  CHECK(to_string(ErrorKind::context_length) == "context_length");
  CHECK(to_string(ErrorKind::invalid_tool_call) == "invalid_tool_call");
}

TEST_CASE("the reference kernel's kind names are accepted") {
  CHECK(error_kind_from_string("provider_unavailable") == ErrorKind::unavailable);
  CHECK(error_kind_from_string("abort") == ErrorKind::cancelled);
  CHECK(error_kind_from_string("quota_exceeded") == ErrorKind::quota);
  CHECK_THROWS_WITH_AS(error_kind_from_string("meltdown"), "kind: unknown error kind 'meltdown'",
                       ModelError);
}

TEST_CASE("transient kinds are retryable by default, the others are not") {
  CHECK(retryable_by_default(ErrorKind::rate_limit));
  CHECK(retryable_by_default(ErrorKind::overloaded));
  CHECK(retryable_by_default(ErrorKind::timeout));
  CHECK_FALSE(retryable_by_default(ErrorKind::context_length));  // resending fails the same way
  CHECK_FALSE(retryable_by_default(ErrorKind::authentication));
  CHECK(KernelError::make(ErrorKind::network, "reset").retryable);
}

TEST_CASE("a full provider error round trips") {
  const json::value original = json::parse(R"({"kind":"rate_limit","message":"slow down",
      "provider":"anthropic","model":"claude-sonnet-4-5","status_code":429,"retryable":true,
      "retry_after":1.5,"request_id":"req_011","vendor_type":"rate_limit_error"})");
  const ProviderError error = from_json<ProviderError>(original);
  CHECK(error.kind == ErrorKind::rate_limit);
  CHECK(error.message == "slow down");
  CHECK(error.provider == "anthropic");
  CHECK(error.model == "claude-sonnet-4-5");
  CHECK(error.status_code == 429);
  CHECK(error.retryable);
  CHECK(error.retry_after == doctest::Approx(1.5));
  CHECK(error.request_id == "req_011");
  CHECK(error.extra.at("vendor_type") == "rate_limit_error");
  CHECK(json::value(to_json(error)) == original);
}

TEST_CASE("a minimal error keeps its optional fields absent") {
  const KernelError error = from_json<KernelError>(json::parse(R"({"kind":"context_length","message":"too long"})"));
  CHECK_FALSE(error.retryable);  // the kind's default
  CHECK_FALSE(error.status_code.has_value());
  CHECK_FALSE(error.retry_after.has_value());
  const json::object out = to_json(error);
  CHECK(out.size() == 3);  // kind, message, retryable
  CHECK(out.at("retryable") == false);

  const KernelError explicit_flag =
      from_json<KernelError>(json::parse(R"({"kind":"internal","message":"m","retryable":true})"));
  CHECK(explicit_flag.retryable);
}

TEST_CASE("malformed error JSON is rejected clearly") {
  CHECK_THROWS_WITH_AS(from_json<KernelError>(json::parse(R"({"message":"m"})")), "error has no kind",
                       ModelError);
  CHECK_THROWS_WITH_AS(from_json<KernelError>(json::parse(R"({"kind":"boom","message":"m"})")),
                       "kind: unknown error kind 'boom'", ModelError);
  CHECK_THROWS_WITH_AS(from_json<KernelError>(json::parse(R"({"kind":"timeout","message":"m","status_code":"504"})")),
                       "status_code: expected an integer, got string", ModelError);
  CHECK_THROWS_WITH_AS(from_json<KernelError>(json::parse(R"({"kind":"timeout","message":"m","status_code":1234})")),
                       "status_code: not an HTTP status code", ModelError);
}

TEST_CASE("KernelException carries the error") {
  try {
    throw KernelException(KernelError::make(ErrorKind::overloaded, "Overloaded"));
  } catch (const KernelException &exception) {
    CHECK(std::string(exception.what()) == "overloaded: Overloaded");
    CHECK(exception.error().kind == ErrorKind::overloaded);
    CHECK(exception.error().retryable);
  }
}
