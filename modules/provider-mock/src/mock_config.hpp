// provider-mock's configuration: the scripted responses and the streaming pace.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/module_support/config_reader.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace provider_mock {

struct ScriptedToolCall {
  std::optional<std::string> id;  // generated when absent
  std::string name;
  boost::json::object input;
};

// One item of `responses`: the content to stream, or an error to fail with (after streaming
// whatever content the item also has, which simulates a stream that breaks midway).
struct ScriptedResponse {
  std::optional<std::string> thinking;
  std::optional<std::string> signature;
  std::optional<std::string> text;
  std::vector<ScriptedToolCall> tool_calls;
  std::optional<amplifier::KernelError> error;
  std::chrono::milliseconds delay{0};  // before the first event (time to first token)
  // The usage to report (as the model's Usage: input_tokens, output_tokens, total_tokens,
  // cache_read_tokens, reasoning_tokens, ...); absent: estimated from the request and answer.
  std::optional<amplifier::Usage> usage;
};

struct MockConfig {
  std::vector<ScriptedResponse> responses;
  std::size_t chunk_size = 8;                 // characters (code points) per delta
  std::chrono::milliseconds delta_delay{0};   // between consecutive events
  std::string model = "mock-model";
  // When set, every request received is appended to this file as one JSON line (for tests
  // that check what a provider is actually sent).
  std::string record_requests;

  // Reads every key, so that `reader` knows which ones were unknown; unknown keys inside
  // `responses` items are warned about here, through `host`, with the item's position.
  // Throws ConfigError naming the first bad value, e.g.
  // "provider-mock config: responses[1]: 'error' is not a valid error: ...".
  static MockConfig read(amplifier::module_support::ConfigReader &reader,
                         const amp::sdk::Host &host);
};

}  // namespace provider_mock
