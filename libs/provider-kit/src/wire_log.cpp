#include "amplifier/provider/wire_log.hpp"

#include "amplifier/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace amplifier::provider {

namespace json = boost::json;

namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

void scrub_string(std::string &text, std::string_view secret) {
  for (auto at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + kRedacted.size()))
    text.replace(at, secret.size(), kRedacted);
}

}  // namespace

bool is_secret_header(std::string_view name) {
  const std::string lower = lowercase(name);
  constexpr std::array kMarkers = {std::string_view("api-key"),       std::string_view("apikey"),
                                   std::string_view("authorization"), std::string_view("cookie"),
                                   std::string_view("token"),         std::string_view("secret")};
  return std::any_of(kMarkers.begin(), kMarkers.end(), [&](std::string_view marker) {
    return lower.find(marker) != std::string::npos;
  });
}

json::object redacted_headers(const amplifier::transport::Headers &headers) {
  json::object out;
  for (const auto &[name, value] : headers.fields())
    out[name] = is_secret_header(name) ? json::string(kRedacted) : json::string(value);
  return out;
}

void scrub_secret(json::value &value, std::string_view secret) {
  // Real keys are long; scrubbing a two-letter placeholder would mangle every payload while
  // protecting nothing (the auth headers are masked regardless).
  constexpr std::size_t kShortestScrubbedSecret = 8;
  if (secret.size() < kShortestScrubbedSecret) return;
  if (value.is_string()) {
    std::string text(value.get_string());
    if (text.find(secret) == std::string::npos) return;
    scrub_string(text, secret);
    value = text;
  } else if (value.is_array()) {
    for (auto &item : value.get_array()) scrub_secret(item, secret);
  } else if (value.is_object()) {
    json::object scrubbed;
    for (auto &entry : value.get_object()) {
      std::string key(entry.key());
      scrub_string(key, secret);
      json::value item = std::move(entry.value());
      scrub_secret(item, secret);
      scrubbed[key] = std::move(item);
    }
    value = std::move(scrubbed);
  }
}

namespace {

constexpr std::size_t kDebugStringBytes = 512;
constexpr std::size_t kDebugArrayItems = 64;

// The longest prefix of `text` of at most `limit` bytes that ends on a UTF-8 boundary.
std::size_t utf8_prefix(std::string_view text, std::size_t limit) {
  std::size_t end = std::min(limit, text.size());
  while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return end;
}

}  // namespace

json::value cut_for_debug(const json::value &value) {
  switch (value.kind()) {
    case json::kind::string: {
      const json::string &text = value.get_string();
      if (text.size() <= kDebugStringBytes) return value;
      const std::size_t keep = utf8_prefix(text, kDebugStringBytes);
      std::string cut(text.data(), keep);
      cut += "\u2026 [" + std::to_string(text.size() - keep) + " more bytes]";
      return json::string(cut);
    }
    case json::kind::array: {
      const json::array &items = value.get_array();
      json::array out;
      const std::size_t kept = std::min(items.size(), kDebugArrayItems);
      out.reserve(kept + 1);
      for (std::size_t i = 0; i < kept; ++i) out.push_back(cut_for_debug(items[i]));
      if (items.size() > kept)
        out.push_back(json::string("\u2026 [" + std::to_string(items.size() - kept) + " more items]"));
      return out;
    }
    case json::kind::object: {
      json::object out;
      for (const auto &[key, member] : value.get_object()) out.emplace(key, cut_for_debug(member));
      return out;
    }
    default:
      return value;
  }
}

json::object llm_request_payload(const RequestSummary &summary, bool raw, std::string_view url,
                                 const amplifier::transport::Headers &headers,
                                 const json::object &body, std::string_view api_key) {
  json::object payload{{"provider", summary.provider},     {"model", summary.model},
                       {"stream", summary.stream},         {"message_count", summary.message_count},
                       {"tool_count", summary.tool_count}, {"thinking", summary.thinking}};
  if (!raw) return payload;
  json::value request = json::object{
      {"method", "POST"}, {"url", url}, {"headers", redacted_headers(headers)}, {"body", body}};
  scrub_secret(request, api_key);
  payload["request"] = std::move(request);
  return payload;
}

json::object llm_response_payload(const ResponseSummary &summary, bool raw,
                                  const amplifier::transport::Headers &headers,
                                  json::value raw_body, std::string_view api_key) {
  json::object payload{{"provider", summary.provider},
                       {"model", summary.model},
                       {"status", summary.status},
                       {"duration_ms", summary.duration.count()}};
  if (summary.response) {
    if (summary.response->usage) payload["usage"] = amplifier::to_json(*summary.response->usage);
    if (summary.response->finish_reason)
      payload["finish_reason"] = *summary.response->finish_reason;
  }
  if (summary.error) {
    // A server's error text may quote the request (and so the key): scrubbed at every level.
    json::value error = amplifier::to_json(*summary.error);
    scrub_secret(error, api_key);
    payload["error"] = std::move(error);
  }
  if (!raw) return payload;
  json::value response = json::object{{"status", summary.status},
                                      {"headers", redacted_headers(headers)},
                                      {"body", std::move(raw_body)}};
  scrub_secret(response, api_key);
  payload["response"] = std::move(response);
  return payload;
}

}  // namespace amplifier::provider
