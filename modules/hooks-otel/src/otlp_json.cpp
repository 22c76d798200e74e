#include "otlp_json.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <chrono>
#include <random>

#include <sys/random.h>

namespace hooks_otel {
namespace json = boost::json;

namespace {

// The operating system's random source (getrandom): ids that no seed can make repeat across
// processes started at the same moment.
template <std::size_t N>
std::array<std::uint8_t, N> random_bytes() {
  std::array<std::uint8_t, N> bytes{};
  do {
    std::size_t filled = 0;
    while (filled < N) {
      const ssize_t got = ::getrandom(bytes.data() + filled, N - filled, 0);
      if (got > 0) {
        filled += static_cast<std::size_t>(got);
      } else {
        // No kernel entropy call (ancient kernel, seccomp): std::random_device instead.
        std::random_device device;
        for (auto &b : bytes) b = static_cast<std::uint8_t>(device());
        filled = N;
      }
    }
  } while (std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; }));
  return bytes;
}

template <std::size_t N>
std::string hex_of(const std::array<std::uint8_t, N> &bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * N);
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

json::object any_value(const AttributeValue &value) {
  struct Visitor {
    json::object operator()(const std::string &s) const { return {{"stringValue", s}}; }
    // proto3's JSON mapping writes int64 as a string.
    json::object operator()(std::int64_t n) const { return {{"intValue", std::to_string(n)}}; }
    json::object operator()(double d) const { return {{"doubleValue", d}}; }
    json::object operator()(bool b) const { return {{"boolValue", b}}; }
    json::object operator()(const std::vector<std::string> &list) const {
      json::array values;
      for (const auto &s : list) values.push_back(json::object{{"stringValue", s}});
      return {{"arrayValue", json::object{{"values", std::move(values)}}}};
    }
  };
  return std::visit(Visitor{}, value);
}

json::array attributes_json(const std::vector<Attribute> &attributes) {
  json::array out;
  for (const auto &a : attributes)
    out.push_back(json::object{{"key", a.key}, {"value", any_value(a.value)}});
  return out;
}

json::object span_json(const Span &span) {
  json::object out{{"traceId", to_hex(span.trace_id)}, {"spanId", to_hex(span.span_id)}};
  if (span.parent_span_id) out["parentSpanId"] = to_hex(*span.parent_span_id);
  out["name"] = span.name;
  out["kind"] = static_cast<int>(span.kind);
  out["startTimeUnixNano"] = std::to_string(span.start_unix_nano);
  out["endTimeUnixNano"] = std::to_string(std::max(span.end_unix_nano, span.start_unix_nano));
  out["attributes"] = attributes_json(span.attributes);
  json::object status{{"code", static_cast<int>(span.status)}};
  if (span.status == StatusCode::error && !span.status_message.empty())
    status["message"] = span.status_message;
  out["status"] = std::move(status);
  return out;
}

}  // namespace

TraceId new_trace_id() { return random_bytes<16>(); }
SpanId new_span_id() { return random_bytes<8>(); }
std::string to_hex(const TraceId &id) { return hex_of(id); }
std::string to_hex(const SpanId &id) { return hex_of(id); }

void Span::set(std::string key, AttributeValue value) {
  for (auto &a : attributes)
    if (a.key == key) {
      a.value = std::move(value);
      return;
    }
  attributes.push_back({std::move(key), std::move(value)});
}

bool Span::has(std::string_view key) const {
  return std::any_of(attributes.begin(), attributes.end(),
                     [&](const Attribute &a) { return a.key == key; });
}

std::uint64_t now_unix_nano() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

std::string export_request_json(const std::vector<Span> &spans,
                                const std::vector<Attribute> &resource_attributes,
                                std::string_view scope_name, std::string_view scope_version) {
  json::array span_list;
  for (const auto &span : spans) span_list.push_back(span_json(span));
  json::object scope_spans{
      {"scope", json::object{{"name", scope_name}, {"version", scope_version}}},
      {"spans", std::move(span_list)}};
  json::object resource_spans{
      {"resource", json::object{{"attributes", attributes_json(resource_attributes)}}},
      {"scopeSpans", json::array{std::move(scope_spans)}}};
  return json::serialize(json::object{{"resourceSpans", json::array{std::move(resource_spans)}}});
}

}  // namespace hooks_otel
