// The HTTP API without HTTP: a request as the router sees it and the response it gives back.
// Only http_server.cpp knows Beast; everything else works on these.
#pragma once
#include "event_stream.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace amplifier::host::serve {

struct ApiRequest {
  std::string method;  // GET, POST, ...
  std::string path;    // without the query
  std::string body;
  std::string if_none_match;  // the If-None-Match header: a cached page asset is answered 304
  std::string query;          // what follows '?' in the target, as sent
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::string> allow;                            // for 405: the methods the path takes
  std::vector<std::pair<std::string, std::string>> headers;  // more headers, e.g. ETag
  // Set: the body comes from this stream as it is produced (a turn's events).
  std::shared_ptr<EventStream> stream;
};

// A request the API refuses: becomes {"error":{"type","message"}} with `status`.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string type, const std::string &message)
      : std::runtime_error(message), status_(status), type_(std::move(type)) {}
  int status() const { return status_; }
  const std::string &type() const { return type_; }

 private:
  int status_;
  std::string type_;
};

ApiResponse json_response(int status, const boost::json::value &body);
ApiResponse error_response(int status, std::string_view type, std::string_view message);

// The request body as a JSON object: ApiError 400 naming the problem otherwise. An empty body
// is an empty object.
boost::json::object parse_body(const ApiRequest &request);
// `text` without the spaces and tabs around it (a header value's optional whitespace).
std::string_view trim_blanks(std::string_view text);

// The decoded value of parameter `key` in a query string ("a=1&token=x%20y" -> "x y");
// nullopt when it is not there or the query is malformed.
std::optional<std::string> query_parameter(std::string_view query, std::string_view key);

// A string member of `body`: ApiError 400 when present with another type, or absent and
// `required`.
std::string string_member(const boost::json::object &body, std::string_view key, bool required);

}  // namespace amplifier::host::serve
