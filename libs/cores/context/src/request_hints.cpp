#include "amplifier/context/request_hints.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/object.hpp>

namespace amplifier::context {
namespace json = boost::json;
namespace ms = amplifier::module_support;

RequestHints parse_request_hints(std::string_view request_json) {
  RequestHints hints;
  if (request_json.find_first_not_of(" \t\r\n") == std::string_view::npos) return hints;
  const json::object object = ms::parse_json_object(request_json, "request hints");
  auto string_of = [&](std::string_view key) -> std::optional<std::string> {
    const json::value *value = object.if_contains(key);
    return value && value->is_string() ? std::optional<std::string>(value->get_string())
                                       : std::nullopt;
  };
  // A window or limit of zero or less says nothing usable, so it counts as absent.
  auto positive_int_of = [&](std::string_view key) -> std::optional<std::int64_t> {
    const json::value *value = object.if_contains(key);
    if (!value || !ms::is_integral(*value) || ms::to_int64(*value) <= 0) return std::nullopt;
    return ms::to_int64(*value);
  };
  hints.provider = string_of("provider");
  hints.model = string_of("model");
  hints.context_window = positive_int_of("context_window");
  hints.max_output_tokens = positive_int_of("max_output_tokens");
  const json::value *overflow = object.if_contains("context_overflow");
  hints.context_overflow = overflow && overflow->is_bool() && overflow->get_bool();
  return hints;
}

}  // namespace amplifier::context
