// Finished spans and their OTLP/JSON encoding (opentelemetry-proto's JSON mapping, as
// OTLP/HTTP with Content-Type application/json takes it): trace and span ids as lowercase hex
// (not base64), enums as integers, 64-bit integers and times as decimal strings, field names
// in lowerCamelCase.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hooks_otel {

using TraceId = std::array<std::uint8_t, 16>;
using SpanId = std::array<std::uint8_t, 8>;

// Fresh random ids (never all zero, which OTLP reads as "no id").
TraceId new_trace_id();
SpanId new_span_id();
std::string to_hex(const TraceId &id);
std::string to_hex(const SpanId &id);

// SpanKind and Status.code of the OTLP protocol.
enum class SpanKind : int { internal = 1, server = 2, client = 3 };
enum class StatusCode : int { unset = 0, ok = 1, error = 2 };

using AttributeValue = std::variant<std::string, std::int64_t, double, bool, std::vector<std::string>>;
struct Attribute {
  std::string key;
  AttributeValue value;
};

struct Span {
  TraceId trace_id{};
  SpanId span_id{};
  std::optional<SpanId> parent_span_id;
  std::string name;
  SpanKind kind = SpanKind::internal;
  std::uint64_t start_unix_nano = 0;
  std::uint64_t end_unix_nano = 0;
  std::vector<Attribute> attributes;
  StatusCode status = StatusCode::unset;
  std::string status_message;  // with StatusCode::error

  void set(std::string key, AttributeValue value);  // replaces an attribute of that key
  bool has(std::string_view key) const;
};

// Nanoseconds since the Unix epoch, now.
std::uint64_t now_unix_nano();

// One ExportTraceServiceRequest: {"resourceSpans":[{"resource":{"attributes":[...]},
// "scopeSpans":[{"scope":{"name","version"},"spans":[...]}]}]}.
std::string export_request_json(const std::vector<Span> &spans,
                                const std::vector<Attribute> &resource_attributes,
                                std::string_view scope_name, std::string_view scope_version);

}  // namespace hooks_otel
