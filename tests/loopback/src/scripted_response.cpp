#include "amplifier/loopback/loopback_server.hpp"

namespace amplifier::loopback {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}
}  // namespace

ScriptedResponse ScriptedResponse::sse(std::string body, std::vector<std::size_t> piece_sizes) {
  ScriptedResponse response;
  response.headers = {{"content-type", "text/event-stream"}, {"cache-control", "no-cache"}};
  response.body = std::move(body);
  response.piece_sizes = std::move(piece_sizes);
  return response;
}

ScriptedResponse ScriptedResponse::ndjson(std::string body, std::vector<std::size_t> piece_sizes) {
  ScriptedResponse response;
  response.headers = {{"content-type", "application/x-ndjson"}};
  response.body = std::move(body);
  response.piece_sizes = std::move(piece_sizes);
  return response;
}

ScriptedResponse ScriptedResponse::json(int status, std::string body, HeaderList headers) {
  ScriptedResponse response;
  response.status = status;
  response.headers = std::move(headers);
  response.headers.emplace_back("content-type", "application/json");
  response.body = std::move(body);
  response.framing = Framing::content_length;
  return response;
}

ScriptedResponse ScriptedResponse::rate_limited(std::string retry_after_value) {
  return json(429,
              R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"},"request_id":"req_loopback_429"})",
              {{"retry-after", std::move(retry_after_value)}, {"request-id", "req_loopback_429"}});
}

ScriptedResponse ScriptedResponse::overloaded() {
  return json(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
}

ScriptedResponse ScriptedResponse::server_error() {
  return json(500, R"({"type":"error","error":{"type":"api_error","message":"Internal server error"}})");
}

std::optional<std::string> RecordedRequest::header(std::string_view name) const {
  for (const auto &[field, value] : headers)
    if (iequals(field, name)) return value;
  return std::nullopt;
}

}  // namespace amplifier::loopback
