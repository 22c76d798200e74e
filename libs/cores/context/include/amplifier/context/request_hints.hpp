// The hints an orchestrator passes to get_messages_for_request:
// {"provider","model","context_window","max_output_tokens","context_overflow"}, every field
// optional. `context_overflow: true` says the provider refused the previous request for this
// conversation as too long (a context_length error): the context must send less this time.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::context {

struct RequestHints {
  std::optional<std::string> provider;  // the provider's mount name
  std::optional<std::string> model;
  std::optional<std::int64_t> context_window;
  std::optional<std::int64_t> max_output_tokens;
  bool context_overflow = false;
};

// Empty (or blank) text means no hints. Throws std::invalid_argument when the text is not a
// JSON object; fields of the wrong type are ignored (hints are advice, not commands).
RequestHints parse_request_hints(std::string_view request_json);

}  // namespace amplifier::context
