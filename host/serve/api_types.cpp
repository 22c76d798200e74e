#include "api_types.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse_query.hpp>
#include <boost/url/params_view.hpp>
#include <fmt/format.h>

namespace amplifier::host::serve {
namespace json = boost::json;

ApiResponse json_response(int status, const json::value &body) {
  ApiResponse response;
  response.status = status;
  response.body = json::serialize(body);
  return response;
}

ApiResponse error_response(int status, std::string_view type, std::string_view message) {
  return json_response(status,
                       json::object{{"error", json::object{{"type", type}, {"message", message}}}});
}

json::object parse_body(const ApiRequest &request) {
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return {};
  json::error_code ec;
  json::value value = json::parse(request.body, ec);
  if (ec)
    throw ApiError(400, "invalid_json",
                   fmt::format("the request body is not valid JSON: {}", ec.message()));
  if (!value.is_object())
    throw ApiError(400, "invalid_request", "the request body must be a JSON object");
  return std::move(value.as_object());
}

std::string_view trim_blanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::optional<std::string> query_parameter(std::string_view query, std::string_view key) {
  const auto params = boost::urls::parse_query(query);
  if (!params) return std::nullopt;
  for (const auto &param : boost::urls::params_view(*params))
    if (param.key == key) return std::string(param.value);
  return std::nullopt;
}

std::string string_member(const json::object &body, std::string_view key, bool required) {
  const json::value *value = body.if_contains(key);
  if (!value || value->is_null()) {
    if (required) throw ApiError(400, "invalid_request", fmt::format("'{}' is required", key));
    return {};
  }
  if (!value->is_string())
    throw ApiError(400, "invalid_request", fmt::format("'{}' must be a string", key));
  return std::string(value->as_string());
}

}  // namespace amplifier::host::serve
