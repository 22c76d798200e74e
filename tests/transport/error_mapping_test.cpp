#include "test_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::transport {
namespace {

// The SDK recorder's {status_code, headers, body} wrapper around a real error response.
struct RecordedError {
  int status = 0;
  Headers headers;
  std::string body;
};

RecordedError load_recorded_error(const std::string &file) {
  const auto json = boost::json::parse(testing::read_file(testing::vendor_fixture_dir() / file)).as_object();
  RecordedError recorded;
  recorded.status = static_cast<int>(json.at("status_code").as_int64());
  for (const auto &[name, value] : json.at("headers").as_object())
    recorded.headers.add(std::string(name), std::string(value.as_string()));
  recorded.body = boost::json::serialize(json.at("body"));
  return recorded;
}

ErrorMappingOptions identity(std::string provider, std::optional<std::string> model = std::nullopt) {
  ErrorMappingOptions options;
  options.provider = std::move(provider);
  options.model = std::move(model);
  return options;
}

using testing::fixture;

TEST_CASE("errors: HTTP statuses map to kernel kinds") {
  const std::vector<std::pair<int, ErrorKind>> table{
      {400, ErrorKind::invalid_request}, {401, ErrorKind::authentication},
      {402, ErrorKind::quota},           {403, ErrorKind::access_denied},
      {404, ErrorKind::not_found},       {408, ErrorKind::timeout},
      {409, ErrorKind::invalid_request}, {413, ErrorKind::invalid_request},
      {422, ErrorKind::invalid_request}, {429, ErrorKind::rate_limit},
      {500, ErrorKind::unavailable},     {502, ErrorKind::unavailable},
      {503, ErrorKind::unavailable},     {504, ErrorKind::timeout},
      {529, ErrorKind::overloaded},
  };
  for (const auto &[status, kind] : table) {
    CAPTURE(status);
    const KernelError error = map_http_error(status, {}, "");
    CHECK(error.kind == kind);
    CHECK(error.status_code == status);
    CHECK(error.message.find(std::to_string(status)) != std::string::npos);
  }
  CHECK(map_http_error(429, {}, "").retryable);
  CHECK(map_http_error(529, {}, "").retryable);
  CHECK(map_http_error(409, {}, "").retryable);  // conflicts are retried, as the SDKs do
  CHECK_FALSE(map_http_error(400, {}, "").retryable);
  CHECK_FALSE(map_http_error(401, {}, "").retryable);
}

TEST_CASE("errors: recorded Anthropic 400 with x-should-retry false") {
  const RecordedError recorded = load_recorded_error("anthropic_error_400_invalid_request_recorded.json");
  const KernelError error = map_http_error(recorded.status, recorded.headers, recorded.body,
                                           identity("anthropic", "claude-x"));
  CHECK(error.kind == ErrorKind::invalid_request);
  CHECK_FALSE(error.retryable);
  CHECK(error.request_id == std::optional<std::string>("req_011CYHyk9NPsBYeGbC9LuDNK"));
  CHECK(error.message.starts_with("messages.0.content.1: unexpected `tool_use_id`"));
  CHECK(error.provider == std::optional<std::string>("anthropic"));
  CHECK(error.model == std::optional<std::string>("claude-x"));
  CHECK(error.extra.at("vendor_type").as_string() == "invalid_request_error");
}

TEST_CASE("errors: x-should-retry true makes any status retryable; false overrides a 500") {
  const RecordedError recorded = load_recorded_error("anthropic_error_429_rate_limit_recorded.json");
  const KernelError rate_limited = map_http_error(recorded.status, recorded.headers, recorded.body);
  CHECK(rate_limited.kind == ErrorKind::rate_limit);
  CHECK(rate_limited.retryable);
  CHECK(rate_limited.request_id.has_value());
  CHECK(map_http_error(400, {{"x-should-retry", "true"}}, "").retryable);
  CHECK_FALSE(map_http_error(500, {{"X-Should-Retry", "false"}}, "").retryable);
}

TEST_CASE("errors: request id from request-id or x-request-id headers, before the body's") {
  const std::string body = R"({"type":"error","error":{"type":"not_found_error","message":"nope"},"request_id":"req_body"})";
  CHECK(map_http_error(404, {{"Request-Id", "req_header"}}, body).request_id == std::optional<std::string>("req_header"));
  CHECK(map_http_error(404, {{"x-request-id", "req_x"}}, body).request_id == std::optional<std::string>("req_x"));
  CHECK(map_http_error(404, {}, body).request_id == std::optional<std::string>("req_body"));
  CHECK(map_http_error(404, {}, fixture("anthropic_error_404_docs.json")).kind == ErrorKind::not_found);
}

TEST_CASE("errors: retry hints from retry-after-ms, retry-after seconds and HTTP dates") {
  CHECK(map_http_error(429, {{"retry-after-ms", "1500"}, {"retry-after", "9"}}, "").retry_after == 1.5);
  CHECK(map_http_error(429, {{"Retry-After", "7"}}, "").retry_after == 7.0);
  CHECK_FALSE(map_http_error(429, {{"retry-after", "soon"}}, "").retry_after.has_value());
  CHECK_FALSE(map_http_error(429, {{"retry-after", "-3"}}, "").retry_after.has_value());
  const auto now = std::chrono::system_clock::from_time_t(1445412480);  // 2015-10-21 07:28:00 UTC
  const Headers dated{{"retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"}};
  CHECK(retry_after_seconds(dated, now) == 30.0);
  CHECK(retry_after_seconds(Headers{{"retry-after", "Wed, 21 Oct 2015 07:27:00 GMT"}}, now) == 0.0);
  CHECK_FALSE(retry_after_seconds(Headers{{"retry-after", "Wed, 21 Foo 2015 07:27:00 GMT"}}, now).has_value());
}

TEST_CASE("errors: retry hints that are not finite or absurdly large are not taken") {
  CHECK_FALSE(map_http_error(429, {{"retry-after", "inf"}}, "").retry_after.has_value());
  CHECK_FALSE(map_http_error(429, {{"retry-after", "nan"}}, "").retry_after.has_value());
  CHECK_FALSE(map_http_error(429, {{"retry-after-ms", "infinity"}}, "").retry_after.has_value());
  CHECK_FALSE(map_http_error(429, {{"retry-after", "1e300"}}, "").retry_after.has_value());
  CHECK_FALSE(map_http_error(429, {{"retry-after", "1e400"}}, "").retry_after.has_value());
  CHECK(map_http_error(429, {{"retry-after", "86400"}}, "").retry_after == 86400.0);
  CHECK_FALSE(map_http_error(429, {},
                             R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[)"
                             R"({"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"infs"}]}})")
                  .retry_after.has_value());
}

TEST_CASE("errors: Gemini RetryInfo in the body gives retry_after") {
  const KernelError error = map_http_error(429, {}, fixture("gemini_error_429_retry_info_recorded_issue.json"));
  CHECK(error.kind == ErrorKind::rate_limit);
  CHECK(error.retry_after == 26.0);
  CHECK(error.message.starts_with("You exceeded your current quota"));
  const KernelError invalid = map_http_error(400, {}, fixture("gemini_error_400_api_key_invalid_recorded_firebase.json"));
  CHECK(invalid.kind == ErrorKind::invalid_request);
  CHECK(invalid.extra.at("vendor_type").as_string() == "INVALID_ARGUMENT");
  // Recorded as {url, statusCode, headers, bodySegments}: the body is the first segment.
  const auto recorded = boost::json::parse(fixture("gemini_error_404_stream_recorded.json")).as_object();
  const std::string body = boost::json::serialize(recorded.at("bodySegments").as_array().at(0));
  const KernelError not_found = map_http_error(404, {}, body);
  CHECK(not_found.kind == ErrorKind::not_found);
  CHECK(not_found.message.find("is not found for API version v1beta") != std::string::npos);
}

TEST_CASE("errors: Gemini errors wrapped in an array are read too") {
  const std::string body = R"([{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}])";
  const KernelError error = map_http_error(503, {}, body);
  CHECK(error.kind == ErrorKind::overloaded);
  CHECK(error.message == "The model is overloaded. Please try again later.");
  CHECK(map_http_error(503, {}, fixture("gemini_error_503_unavailable_recorded_issue.json")).kind ==
        ErrorKind::unavailable);
}

TEST_CASE("errors: quota, content filter and context length refine the status") {
  const std::string quota = R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})";
  CHECK(map_http_error(429, {}, quota).kind == ErrorKind::quota);
  CHECK_FALSE(map_http_error(429, {}, quota).retryable);

  const KernelError filtered = map_http_error(400, {}, fixture("azure_openai_error_content_filter_docs.json"));
  CHECK(filtered.kind == ErrorKind::content_filter);
  CHECK(filtered.message.find("content management policy") != std::string::npos);

  const std::string too_long = R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}})";
  CHECK(map_http_error(400, {}, too_long).kind == ErrorKind::context_length);
  CHECK_FALSE(map_http_error(400, {}, too_long).retryable);
  const std::string openai_too_long = R"({"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}})";
  CHECK(map_http_error(400, {}, openai_too_long).kind == ErrorKind::context_length);
  const std::string tpm = R"({"error":{"message":"Rate limit reached: too many tokens per min","type":"tokens","code":"rate_limit_exceeded"}})";
  CHECK(map_http_error(429, {}, tpm).kind == ErrorKind::rate_limit);
}

TEST_CASE("errors: a provider-specific context length detector replaces the default") {
  ErrorMappingOptions options;
  options.is_context_length = [](int status, const VendorError &vendor) {
    return status == 400 && vendor.message.find("input exceeds window") != std::string::npos;
  };
  CHECK(map_http_error(400, {}, R"({"error":{"message":"input exceeds window"}})", options).kind ==
        ErrorKind::context_length);
  CHECK(map_http_error(400, {}, R"({"error":{"message":"prompt is too long"}})", options).kind ==
        ErrorKind::invalid_request);
}

TEST_CASE("errors: a body that is not JSON is quoted in the message") {
  const KernelError error = map_http_error(502, {}, "<html>Bad gateway</html>");
  CHECK(error.kind == ErrorKind::unavailable);
  CHECK(error.message == "HTTP 502: <html>Bad gateway</html>");
  CHECK(map_http_error(301, {}, "").kind == ErrorKind::configuration);
}

TEST_CASE("errors: in-stream error events map by vendor type") {
  const std::string anthropic = fixture("anthropic_stream_error_overloaded_docs.sse");
  const std::string data = anthropic.substr(anthropic.find("data: ") + 6);
  const KernelError overloaded = map_stream_error(data.substr(0, data.find('\n')));
  CHECK(overloaded.kind == ErrorKind::overloaded);
  CHECK(overloaded.retryable);
  CHECK(overloaded.message == "Overloaded");
  CHECK_FALSE(overloaded.status_code.has_value());

  const std::string openai = R"({"type":"error","sequence_number":2,"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota","param":null}})";
  CHECK(map_stream_error(openai).kind == ErrorKind::quota);
  const std::string failed = R"({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}})";
  CHECK(map_stream_error(failed).kind == ErrorKind::unavailable);
  CHECK(map_stream_error(failed).message == "boom");
  const KernelError ollama = map_stream_error(R"({"error":"an error was encountered while running the model"})");
  CHECK(ollama.kind == ErrorKind::unavailable);
  CHECK(ollama.message == "an error was encountered while running the model");
}

TEST_CASE("errors: vendor error envelopes are extracted") {
  const VendorError openai = parse_vendor_error(R"({"error":{"message":"m","type":"t","param":null,"code":"c"}})");
  CHECK(openai.message == "m");
  CHECK(openai.type == "t");
  CHECK(openai.code == "c");
  const VendorError google = parse_vendor_error(R"({"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}})");
  CHECK(google.type == "RESOURCE_EXHAUSTED");
  CHECK(google.code.empty());
  CHECK(parse_vendor_error("not json").message.empty());
  CHECK(parse_vendor_error("").type.empty());
  CHECK(kind_from_vendor_type("overloaded_error") == ErrorKind::overloaded);
  CHECK_FALSE(kind_from_vendor_type("something_else").has_value());
}

TEST_CASE("errors: to_json of a mapped error follows the kernel error shape") {
  const KernelError error = map_http_error(429, {{"retry-after", "2"}, {"request-id", "req_1"}}, "",
                                           identity("anthropic"));
  const boost::json::object json = to_json(error);
  CHECK(json.at("kind").as_string() == "rate_limit");
  CHECK(json.at("status_code").as_int64() == 429);
  CHECK(json.at("retryable").as_bool());
  CHECK(json.at("retry_after").as_double() == 2.0);
  CHECK(json.at("request_id").as_string() == "req_1");
  CHECK(json.at("provider").as_string() == "anthropic");
}

}  // namespace
}  // namespace amplifier::transport
