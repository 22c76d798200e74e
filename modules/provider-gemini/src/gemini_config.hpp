// provider-gemini's configuration, read once at mount.
#pragma once
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/provider/http_config.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gemini {

inline constexpr std::string_view kModuleId = "provider-gemini";
inline constexpr std::string_view kKeyEnv = "GEMINI_API_KEY";
inline constexpr std::string_view kKeyEnvFallback = "GOOGLE_API_KEY";
inline constexpr std::string_view kDefaultBaseUrl = "https://generativelanguage.googleapis.com";
inline constexpr std::string_view kDefaultModel = "gemini-2.5-flash";
// How a Gemini thought part says its text goes back (see ThinkingBlock).
inline constexpr std::string_view kReasoningField = "thought";
// Where a part's thoughtSignature rides on the block made of it.
inline constexpr std::string_view kSignatureKey = "thought_signature";
// Marks a tool call whose id is Gemini's own (a functionCall part's `id`), so it goes back on
// the functionCall and its functionResponse; an id Gemini did not give (we make one when it
// gives none) is never sent.
inline constexpr std::string_view kVendorIdKey = "gemini_function_call_id";

// Whether `model` thinks (Gemini 2.5 and later, and the *-thinking-* models): only these take
// a thinkingConfig, and only with includeThoughts do their thought parts stream.
bool model_thinks(std::string_view model);

struct GeminiConfig : amplifier::provider::HttpConfig {
  std::string api_key;  // sent as x-goog-api-key, never in the URL
  std::string base_url;
  std::string default_model;
  std::optional<std::int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<std::int64_t> thinking_budget;  // -1: dynamic; 0: off
  std::optional<bool> include_thoughts;

  // GEMINI_API_KEY, then GOOGLE_API_KEY. Throws ConfigError naming the first bad value.
  static GeminiConfig read(amplifier::module_support::ConfigReader &reader,
                           const amplifier::provider::EnvLookup &env);
};

// The headers of a request to the API: JSON (content-type when a body goes, `accept`) and the
// key as x-goog-api-key (never in the URL).
amplifier::transport::Headers gemini_headers(const GeminiConfig &config, bool with_body,
                                             std::string_view accept);

}  // namespace gemini
