// Usage and Degradation <-> JSON.
#include "parsers.hpp"

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

json::object to_json(const Usage &usage) {
  json::object out;
  out.emplace("input_tokens", usage.input_tokens);
  out.emplace("output_tokens", usage.output_tokens);
  out.emplace("total_tokens", usage.total_tokens);
  detail::put(out, "reasoning_tokens", usage.reasoning_tokens);
  detail::put(out, "cache_read_tokens", usage.cache_read_tokens);
  detail::put(out, "cache_write_tokens", usage.cache_write_tokens);
  detail::put_extra(out, usage.extra);
  return out;
}

json::object to_json(const Degradation &degradation) {
  json::object out;
  out.emplace("feature", degradation.feature);
  out.emplace("reason", degradation.reason);
  detail::put(out, "fallback", degradation.fallback);
  detail::put_extra(out, degradation.extra);
  return out;
}

namespace detail {

Usage parse_usage(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  Usage usage;
  usage.input_tokens = optional_int(object, "input_tokens", path).value_or(0);
  usage.output_tokens = optional_int(object, "output_tokens", path).value_or(0);
  usage.total_tokens = optional_int(object, "total_tokens", path)
                           .value_or(usage.input_tokens + usage.output_tokens);
  usage.reasoning_tokens = optional_int(object, "reasoning_tokens", path);
  usage.cache_read_tokens = optional_int(object, "cache_read_tokens", path);
  usage.cache_write_tokens = optional_int(object, "cache_write_tokens", path);
  usage.extra = unknown_fields(object, {"input_tokens", "output_tokens", "total_tokens",
                                        "reasoning_tokens", "cache_read_tokens",
                                        "cache_write_tokens"});
  return usage;
}

Degradation parse_degradation(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  return Degradation{required_string(object, "feature", path, "degradation"),
                     required_string(object, "reason", path, "degradation"),
                     optional_string(object, "fallback", path),
                     unknown_fields(object, {"feature", "reason", "fallback"})};
}

}  // namespace detail

template <>
Usage from_json<Usage>(const json::value &json) {
  return detail::parse_usage(json, JsonPath());
}

template <>
Degradation from_json<Degradation>(const json::value &json) {
  return detail::parse_degradation(json, JsonPath());
}

}  // namespace amplifier
